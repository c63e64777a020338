// kafkajs 2.2.4 ships no types for its internals; lib/kafka/wire.ts narrows
// each one where it uses it.
declare module 'kafkajs/src/broker/index.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/network/connectionPool.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/network/socketFactory.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/loggers/index.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/protocol/requests/index.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/protocol/requests/apiKeys.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/protocol/error.js' { const value: unknown; export default value; }
declare module 'kafkajs/src/protocol/encoder.js' { const value: unknown; export default value; }
