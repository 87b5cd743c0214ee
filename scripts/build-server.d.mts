export declare const SERVER_DIST: string;
export declare function serverBuildIsStale(): boolean;
export declare function buildServer(): Promise<void>;
export declare function bundleServer(entryPoints: string[], outdir: string): Promise<void>;
