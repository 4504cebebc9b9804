// Every query of the engine, one file per concern; engine files that need several concerns take
// them from here. Modules never import these: they call the engine's public face (engine/index.ts).
export * from './attempts.ts';
export * from './finish.ts';
export * from './generations.ts';
export * from './history.ts';
export * from './items.ts';
export * from './recovery.ts';
export * from './retention.ts';
