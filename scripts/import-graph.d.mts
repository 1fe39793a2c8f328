// Types of scripts/import-graph.mjs for the TypeScript that imports it (test/unit/layering.test.ts).
export interface LocalImport {
  target: string;
  typeOnly: boolean;
}
export type ImportGraph = Map<string, LocalImport[]>;
export const SRC: string;
export const FORBIDDEN_IMPORTS: Record<string, { allowOnly?: string[]; deny?: string[] }>;
export function importGraph(root?: string): ImportGraph;
export function importCycles(graph: ImportGraph, options?: { withTypes?: boolean }): string[][];
export function layerOf(file: string): string;
export function layeringViolations(graph: ImportGraph): { from: string; target: string }[];
