// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "bench-results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["server/**", "scripts/**", "tools/**", "tests/**", "*.config.ts", "eslint.config.js"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["client/**", "public/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    // The boundary from docs/architecture.md: the browser app never imports the server.
    files: ["client/**", "shared/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/server/**", "../server/*", "../../server/*"], message: "client/ and shared/ must not import server/." }] }],
    },
  },
);
