/** The browser entry: hydrates the server's HTML with the same routes and the server's router state. */
import { StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router-dom";
import { routes } from "./routes";
import "./styles.css";

const router = createBrowserRouter(routes);
const container = document.getElementById("root");
if (!container) throw new Error("The page has no #root element to hydrate");

hydrateRoot(
  container,
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
