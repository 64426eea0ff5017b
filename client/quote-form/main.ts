/** The quote form page's script (rapidfire.html): one form, in #rf-app. See mount.ts. */
import "./rapidfire.css";
import { byId } from "./dom";
import { mount } from "./mount";

mount(byId("rf-app"));
