/**
 * Put by scripts/build-snapshot.ts in place of zod's index of its locales, in the start-up snapshot's bundle: the
 * index loads all of them (some fifty modules, a fifth of the bundle's text, and their objects in every command's
 * heap), where the CLI only ever uses the English one, the default that zod registers itself.
 */
import en from 'zod/v4/locales/en.cjs';

export { en };
