/**
 * The three example buyers of issue 43 (Acme, Bolt, Cobalt) as specs, and the sample lead they
 * are rendered for: the fixtures of the buyer-spec tests. They live in tools/buyer-spec-examples.ts
 * so that npm run bench:spec renders the same ones (scripts never import tests).
 */
export * from "../../tools/buyer-spec-examples";
