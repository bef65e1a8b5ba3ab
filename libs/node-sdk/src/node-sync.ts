/** The sync client's facade, where apps and test support have always imported it from (the classes are in ./sync). */
export * from './sync/node-sync';
