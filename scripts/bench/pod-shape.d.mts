export declare const NAMESPACES: number;
export declare const STAMP: string;
export declare function benchPod(i: number, node: number, stamp?: number): Record<string, unknown>;
