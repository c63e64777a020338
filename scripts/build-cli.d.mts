// Types for scripts/build-cli.mjs (imported by test/global-setup.ts and bench/).
export declare const CLI_BUNDLE: string;
export declare function buildCli(options?: { quiet?: boolean }): Promise<{ bytes: number; metafile: unknown }>;
