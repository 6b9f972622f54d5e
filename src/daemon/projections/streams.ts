/** The names of a projection's own streams. */
export const REGISTRY_STREAM = '$projections-$all';
export const definitionStreamOf = (name: string) => `$projections-${name}`;
export const checkpointStreamOf = (name: string) => `$projections-${name}-checkpoint`;
export const resultStreamOf = (name: string) => `$projections-${name}-result`;
export const partitionResultStreamOf = (name: string, partition: string) => `$projections-${name}-${partition}-result`;
export const emittedStreamsStreamOf = (name: string) => `$projections-${name}-emittedstreams`;
export const partitionsStreamOf = (name: string) => `$projections-${name}-partitions`;
/** With reorderEvents: a link to each event in the order it was handed over, with its position. */
export const orderStreamOf = (name: string) => `$projections-${name}-order`;

export const EventTypes = {
  initialized: '$ProjectionsInitialized',
  created: '$ProjectionCreated',
  deleted: '$ProjectionDeleted',
  updated: '$ProjectionUpdated',
  result: 'Result',
  streamTracked: '$StreamTracked',
  partition: '$partition',
} as const;
