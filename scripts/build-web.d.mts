// Types of scripts/build-web.mjs for the TypeScript that imports it (the console's browser test).
export const WEB_OUT: string;
export function webBuildIsStale(): boolean;
export function buildWeb(): Promise<void>;
