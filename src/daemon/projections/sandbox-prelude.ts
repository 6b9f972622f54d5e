/**
 * The projection runtime that runs inside the sandbox, before the user's source: the selectors,
 * the chain, the functions a handler may call, and the entry points the host calls. It is plain
 * JavaScript text, because it is compiled in the isolate, never in the node.
 *
 * Events arrive as one JSON string per batch, each event an array (see event-batch.ts), and the
 * replies leave as one JSON string: nothing but strings crosses the boundary, so no object of the
 * node is ever reachable from projection code.
 */
export const SANDBOX_PRELUDE = String.raw`
(function () {
'use strict';
// WebAssembly memory is reserved outside the heap that --projection-memory-limit-mb bounds (an
// ArrayBuffer's counts against it, a WebAssembly.Memory's does not): projections go without it.
delete globalThis.WebAssembly;
// Taken before the user's code runs: a projection that replaces JSON or Array methods breaks
// only what it calls itself, never the replies to the node.
var JSON_parse = JSON.parse;
var JSON_stringify = JSON.stringify;
var hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
var isArray = Array.isArray;
var objectKeys = Object.keys;
var objectCreate = Object.create;
var Map_ = Map;
var mapGet = Function.prototype.call.bind(Map.prototype.get);
var mapSet = Function.prototype.call.bind(Map.prototype.set);
var mapHas = Function.prototype.call.bind(Map.prototype.has);
var mapForEach = Function.prototype.call.bind(Map.prototype.forEach);
function push(array, value) { array[array.length] = value; }
// A table without a prototype: an event type or an option named toString, constructor or
// __proto__ is a key like any other, never a property of Object.prototype.
function __table() { return objectCreate(null); }
// The handlers the runtime calls itself; an event of one of these types is an ordinary event.
var LIFECYCLE = __table();
LIFECYCLE.$init = true; LIFECYCLE.$initShared = true; LIFECYCLE.$any = true; LIFECYCLE.$created = true; LIFECYCLE.$deleted = true;
var __definition = { sources: { all: false, streams: [], categories: [] }, byStream: false, byCustomPartitions: false,
  handlers: __table(), options: __table(), outputState: false, transformBy: [], filterBy: [], outputTo: null };
var __selected = false;
var __partitionBy = null;
// Partition states by name, in a Map: a partition called __proto__ keeps its state like any other.
var __states = new Map_();
var __shared;
var __emitEnabled = false;
var __out = null;
var __current = null;

function __fail(message) { throw new Error(message); }

function __chain() {
  var chain = {
    when: function (handlers) {
      if (handlers === null || typeof handlers !== 'object') __fail('when() takes an object of handlers');
      // Copied once, own functions only: what the runtime calls is fixed when the projection is defined.
      var table = __table();
      var names = objectKeys(handlers);
      for (var i = 0; i < names.length; i++) if (typeof handlers[names[i]] === 'function') table[names[i]] = handlers[names[i]];
      __definition.handlers = table;
      return chain;
    },
    foreachStream: function () { __definition.byStream = true; return chain; },
    partitionBy: function (fn) {
      if (typeof fn !== 'function') __fail('partitionBy() takes a function');
      __partitionBy = fn; __definition.byCustomPartitions = true; return chain;
    },
    outputState: function () { __definition.outputState = true; return chain; },
    transformBy: function (fn) {
      if (typeof fn !== 'function') __fail('transformBy() takes a function');
      push(__definition.transformBy, fn); __definition.outputState = true; return chain;
    },
    filterBy: function (fn) {
      if (typeof fn !== 'function') __fail('filterBy() takes a function');
      push(__definition.filterBy, fn); __definition.outputState = true; return chain;
    },
    outputTo: function (stream, partitionPattern) {
      if (typeof stream !== 'string' || stream === '') __fail('outputTo() takes a stream name');
      __definition.outputTo = { stream: stream, partitionPattern: typeof partitionPattern === 'string' ? partitionPattern : null };
      __definition.outputState = true; return chain;
    }
  };
  return chain;
}

function __select(kind, names) {
  if (__selected) __fail('a projection has one selector (fromAll, fromStream(s) or fromCategory/ies)');
  __selected = true;
  if (kind === 'all') __definition.sources.all = true;
  for (var i = 0; i < names.length; i++) {
    if (typeof names[i] !== 'string' || names[i] === '') __fail('stream and category names are non-empty strings');
    push(__definition.sources[kind], names[i]);
  }
  return __chain();
}
function __names(args) { return args.length === 1 && isArray(args[0]) ? args[0] : Array.prototype.slice.call(args); }

function fromAll () { return __select('all', []); };
function fromStream (s) { return __select('streams', [s]); };
function fromStreams () { return __select('streams', __names(arguments)); };
function fromCategory (c) { return __select('categories', [c]); };
function fromCategories () { return __select('categories', __names(arguments)); };
function fromStreamCatalog () { __fail('fromStreamCatalog is not supported'); };
function options (o) {
  if (o === null || typeof o !== 'object') __fail('options() takes an object');
  var keys = objectKeys(o);
  for (var i = 0; i < keys.length; i++) __definition.options[keys[i]] = o[keys[i]];
};

function __checkEmit() {
  if (!__emitEnabled) __fail("'emit' is not allowed by the projection/configuration/mode");
  if (__out === null) __fail('emit, linkTo and linkStreamTo may only be called from a handler');
}
function __text(value) {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON_stringify(value);
}
function __stream(name) {
  if (typeof name !== 'string' || name === '') __fail('the target stream must be a non-empty string');
  return name;
}
function emit (streamId, eventType, body, metadata) {
  __checkEmit();
  if (typeof eventType !== 'string' || eventType === '') __fail('emit() needs an event type');
  push(__out.emits, [__current, __stream(streamId), eventType, __text(body), __text(metadata), 1]);
};
function linkTo (streamId, event, metadata) {
  __checkEmit();
  if (!event || typeof event.streamId !== 'string') __fail('linkTo() needs an event a handler was given');
  push(__out.emits, [__current, __stream(streamId), '$>', event.sequenceNumber + '@' + event.streamId, __text(metadata), 0]);
};
function copyTo (streamId, event, metadata) {
  __checkEmit();
  if (!event || typeof event.eventType !== 'string') __fail('copyTo() needs an event a handler was given');
  push(__out.emits, [__current, __stream(streamId), event.eventType, event.bodyRaw, __text(metadata === undefined ? event.metadataRaw : metadata), event.isJson ? 1 : 0]);
};
function linkStreamTo (streamId, linkedStreamId, metadata) {
  __checkEmit();
  push(__out.emits, [__current, __stream(streamId), '$@', String(linkedStreamId), __text(metadata), 0]);
};
function log () {
  if (__out === null) return;
  var parts = [];
  for (var i = 0; i < arguments.length; i++) push(parts, typeof arguments[i] === 'string' ? arguments[i] : JSON_stringify(arguments[i]));
  if (__out.logs.length < 100) push(__out.logs, parts.join(' ').slice(0, 1000));
};

function __parse(text) {
  if (text === '') return undefined;
  try { return JSON_parse(text); } catch (e) { return undefined; }
}
function __Event(raw) { this.r = raw; }
Object.defineProperties(__Event.prototype, {
  streamId: { get: function () { return this.r[0]; }, enumerable: true },
  sequenceNumber: { get: function () { return this.r[1]; }, enumerable: true },
  eventType: { get: function () { return this.r[2]; }, enumerable: true },
  eventId: { get: function () { return this.r[3]; }, enumerable: true },
  isJson: { get: function () { return this.r[4] === 1; }, enumerable: true },
  bodyRaw: { get: function () { return this.r[5]; }, enumerable: true },
  body: { get: function () { if (this.b === undefined) this.b = this.r[4] === 1 ? __parse(this.r[5]) : undefined; return this.b; }, enumerable: true },
  data: { get: function () { return this.body; }, enumerable: true },
  metadataRaw: { get: function () { return this.r[6]; }, enumerable: true },
  metadata: { get: function () { return __parse(this.r[6]); }, enumerable: true },
  linkMetadataRaw: { get: function () { return this.r[7]; }, enumerable: true },
  linkMetadata: { get: function () { return __parse(this.r[7]); }, enumerable: true },
  partition: { get: function () { return this.p; }, enumerable: true },
  category: { get: function () { var i = this.r[0].indexOf('-'); return i < 0 ? this.r[0] : this.r[0].slice(0, i); }, enumerable: true }
});

function __biState() { return __definition.options.biState === true; }
function __initState() {
  var init = __definition.handlers.$init;
  var state = typeof init === 'function' ? init() : {};
  return state === undefined ? {} : state;
}
function __initShared() {
  var init = __definition.handlers.$initShared;
  var state = typeof init === 'function' ? init() : {};
  return state === undefined ? {} : state;
}
function __call(handler, partition, event) {
  var state = mapGet(__states, partition);
  if (__biState()) {
    if (__shared === undefined) __shared = __initShared();
    var pair = [state, __shared];
    var r = handler(pair, event);
    if (isArray(r)) { mapSet(__states, partition, r[0]); if (r[1] !== undefined) __shared = r[1]; }
    else { mapSet(__states, partition, pair[0]); __shared = pair[1]; }
  } else {
    var next = handler(state, event);
    mapSet(__states, partition, next === undefined ? state : next);
  }
}
// The handler of an ordinary event: its type's own, else $any; a lifecycle name is not a type's handler.
function __handlerOf(handlers, eventType) {
  if (LIFECYCLE[eventType] !== true && hasOwn(handlers, eventType)) return handlers[eventType];
  return handlers.$any;
}
function __partitionOf(event) {
  if (__definition.byStream) return event.streamId;
  if (__partitionBy !== null) {
    var key = __partitionBy(event);
    return key === undefined || key === null ? null : String(key);
  }
  return '';
}
function __handle(raw) {
  var event = new __Event(raw);
  var handlers = __definition.handlers;
  var deleted = raw[9] === 1;
  var handler = deleted ? handlers.$deleted : __handlerOf(handlers, raw[2]);
  var partition = __partitionOf(event);
  if (partition === null) return;
  event.p = partition;
  var created = !mapHas(__states, partition);
  if (created) {
    mapSet(__states, partition, __initState());
    if (typeof handlers.$created === 'function') __call(handlers.$created, partition, event);
  }
  if (typeof handler === 'function') __call(handler, partition, event);
  mapSet(__out.changed, partition, true);
}

function __result(state) {
  var value = state;
  for (var i = 0; i < __definition.transformBy.length; i++) value = __definition.transformBy[i](value);
  for (var j = 0; j < __definition.filterBy.length; j++) if (!__definition.filterBy[j](value)) return null;
  return value === undefined ? null : value;
}
function __json(value) { return value === undefined ? null : JSON_stringify(value); }

var __describe = function () {
  var d = __definition;
  var handlers = objectKeys(d.handlers);
  return JSON_stringify({ sources: d.sources, byStream: d.byStream, byCustomPartitions: d.byCustomPartitions,
    handlers: handlers, options: d.options, outputState: d.outputState, outputTo: d.outputTo,
    transforms: d.transformBy.length + d.filterBy.length, biState: __biState() });
};
var __setEmitEnabled = function (enabled) { __emitEnabled = enabled === true; };
var __process = function (batchJson) {
  var batch = JSON_parse(batchJson);
  __out = { emits: [], logs: [], changed: new Map_() };
  try {
    for (var i = 0; i < batch.length; i++) { __current = i; __handle(batch[i]); }
    var reply = { emits: __out.emits, logs: __out.logs, changed: [] };
    mapForEach(__out.changed, function (_, p) {
      var state = mapGet(__states, p);
      push(reply.changed, [p, __json(state), __definition.outputState ? __json(__result(state)) : null]);
    });
    if (__biState()) reply.shared = __json(__shared);
    return JSON_stringify(reply);
  } finally { __out = null; __current = null; }
};
var __state = function (partition) {
  if (!mapHas(__states, partition)) return null;
  return __json(mapGet(__states, partition));
};
var __snapshot = function () {
  // Without a prototype, so that a partition named __proto__ is an own key JSON writes out.
  var states = __table();
  mapForEach(__states, function (state, p) { states[p] = __json(state); });
  return JSON_stringify({ states: states, shared: __shared === undefined ? null : __json(__shared) });
};
var __restore = function (snapshotJson) {
  var snapshot = JSON_parse(snapshotJson);
  __states = new Map_();
  var partitions = objectKeys(snapshot.states);
  for (var i = 0; i < partitions.length; i++) {
    var p = partitions[i];
    mapSet(__states, p, snapshot.states[p] === null ? undefined : JSON_parse(snapshot.states[p]));
  }
  __shared = snapshot.shared === null ? undefined : JSON_parse(snapshot.shared);
};
var __ensureRoot = function () {
  if (!mapHas(__states, '')) mapSet(__states, '', __initState());
  if (__biState() && __shared === undefined) __shared = __initShared();
};

var exported = { fromAll: fromAll, fromStream: fromStream, fromStreams: fromStreams, fromCategory: fromCategory,
  fromCategories: fromCategories, fromStreamCatalog: fromStreamCatalog, options: options, emit: emit, linkTo: linkTo,
  copyTo: copyTo, linkStreamTo: linkStreamTo, log: log, __describe: __describe, __setEmitEnabled: __setEmitEnabled,
  __process: __process, __state: __state, __snapshot: __snapshot, __restore: __restore, __ensureRoot: __ensureRoot };
// Fixed in place: projection code can neither replace the entry points the node calls nor the API.
for (var name in exported) Object.defineProperty(globalThis, name, { value: exported[name], writable: false, configurable: false, enumerable: false });
})();
`;
