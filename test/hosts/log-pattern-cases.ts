// Shared by log-patterns.test.ts and the probe equivalence test (probe-equivalence.test.ts).

// Lines as each Kafka version prints them: log4j prefix "[%d] %p %m (%c)", the
// logger's own prefix where it has one, the message text from that version's
// source. Exception lines (printed under an ERROR) have no prefix.
export const TS = '[2026-11-29 07:00:00,123]';
export const D = '/data/kafka-logs';

export type Case = [version: string, line: string, kind: string, groups?: Record<string, string>];

export const CASES: Case[] = [
  // ------------------------------------------------------------ log loading start/finish
  ['0.11', `${TS} INFO Loading logs. (kafka.log.LogManager)`, 'logs-loading-started'],
  ['2.5', `${TS} INFO Logs loading complete in 1234 ms. (kafka.log.LogManager)`, 'logs-loading-finished', { ms: '1234' }],
  ['2.6', `${TS} INFO Loading logs from log dirs ArrayBuffer(${D}) (kafka.log.LogManager)`, 'logs-loading-started'],
  ['3.4', `${TS} INFO Loaded 5000 logs in 81234ms. (kafka.log.LogManager)`, 'logs-loading-finished', { n: '5000', ms: '81234' }],
  ['3.5', `${TS} INFO Loaded 12 logs in 340ms (unclean log dirs = ArrayBuffer(${D}, /data2/kafka-logs)) (kafka.log.LogManager)`, 'logs-loading-finished', { n: '12', unclean: `ArrayBuffer(${D}, /data2/kafka-logs)` }],
  ['4.1', `${TS} INFO Loaded 0 logs in 66ms (kafka.log.LogManager)`, 'logs-loading-finished', { n: '0' }],

  // ------------------------------------------------------------- clean-shutdown marker
  ['2.6', `${TS} INFO Attempting recovery for all logs in ${D} since no clean shutdown file was found (kafka.log.LogManager)`, 'logdir-unclean', { dir: D }],
  ['3.4', `${TS} INFO Skipping recovery for all logs in ${D} since clean shutdown file was found (kafka.log.LogManager)`, 'logdir-clean', { dir: D }],
  ['3.5', `${TS} INFO Recovering 42 logs from ${D} since no clean shutdown file was found (kafka.log.LogManager)`, 'logdir-unclean', { n: '42', dir: D }],
  ['4.1', `${TS} INFO Skipping recovery of 42 logs from ${D} since clean shutdown file was found (kafka.log.LogManager)`, 'logdir-clean', { n: '42' }],

  // ----------------------------------------------------------------- segment recovery
  ['0.11', `${TS} INFO Recovering unflushed segment 1200 in log A-34. (kafka.log.Log)`, 'segment-recovery', { tp: 'A-34', base: '1200' }],
  ['1.0', `${TS} INFO [Log partition=A-34, dir=${D}] Recovering unflushed segment 1200 (kafka.log.Log)`, 'segment-recovery', { tp: 'A-34', base: '1200' }],
  ['3.0', `${TS} INFO [LogLoader partition=A-34, dir=${D}] Recovering unflushed segment 1200 (kafka.log.LogLoader$)`, 'segment-recovery', { tp: 'A-34' }],
  ['3.3', `${TS} INFO [LogLoader partition=A-34, dir=${D}] Recovering unflushed segment 1200. 1/3 recovered for A-34. (kafka.log.LogLoader)`, 'segment-recovery', { tp: 'A-34', k: '1', total: '3' }],
  // Seen in the 4.1.1 sandbox after kill -9 (the Java port prints one number, not k/n).
  ['4.1', `${TS} INFO [LogLoader partition=payments-0, dir=${D}] Recovering unflushed segment 0. 0 recovered for payments-0. (org.apache.kafka.storage.internals.log.LogLoader)`, 'segment-recovery', { tp: 'payments-0', base: '0', k: '0' }],
  ['4.1', `${TS} INFO [LogLoader partition=__cluster_metadata-0, dir=${D}] Recovering unflushed segment 0. 0 recovered for __cluster_metadata-0. (org.apache.kafka.storage.internals.log.LogLoader)`, 'segment-recovery', { tp: '__cluster_metadata-0' }],
  ['0.11', `${TS} WARN Found invalid offset during recovery for log A-34. Deleting the corrupt segment and creating an empty one with starting offset 1200 (kafka.log.Log)`, 'recovery-truncation', { tp: 'A-34', offset: '1200' }],
  ['2.0', `${TS} WARN [Log partition=A-34, dir=${D}] Found invalid offset during recovery. Deleting the corrupt segment and creating an empty one with starting offset 1200 (kafka.log.Log)`, 'recovery-truncation', { offset: '1200' }],
  ['0.11', `${TS} WARN Corruption found in segment 1200 of log A-34, truncating to offset 1350. (kafka.log.Log)`, 'recovery-truncation', { tp: 'A-34', offset: '1350' }],
  ['4.1', `${TS} WARN [LogLoader partition=A-34, dir=${D}] Corruption found in segment 1200, truncating to offset 1350 (org.apache.kafka.storage.internals.log.LogLoader)`, 'recovery-truncation', { base: '1200', offset: '1350' }],
  ['2.4', `${TS} WARN [Log partition=A-34, dir=${D}] Deleting all segments because logEndOffset (0) is smaller than logStartOffset (1350). This could happen if segment files were deleted from the file system. (kafka.log.Log)`, 'segments-missing', { end: '0', start: '1350' }],
  ['3.9', `${TS} WARN [LogLoader partition=A-34, dir=${D}] Deleting all segments because logEndOffset (0) is smaller than logStartOffset 1350. This could happen if segment files were deleted from the file system. (kafka.log.LogLoader)`, 'segments-missing', { start: '1350' }],
  ['2.6', `${TS} INFO Completed load of Log(dir=${D}/A-34, topic=A, partition=34, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=1350) with 1 segments in 12ms (7/5000 loaded in ${D}) (kafka.log.LogManager)`, 'log-load-progress', { k: '7', total: '5000', dir: D }],
  ['3.3', `${TS} INFO Completed load of Log(dir=${D}/A-34, topic=A, partition=34, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=1350) with 1 segments, local-log-start-offset 0 and log-end-offset 1350 in 12ms (4999/5000 completed in ${D}) (kafka.log.LogManager)`, 'log-load-progress', { k: '4999', total: '5000' }],

  // ----------------------------------------------------------------------- indexes
  ['0.11', `${TS} WARN Found a corrupted index file due to requirement failed: Corrupt index found, index file (${D}/A-34/00000000000000001200.index) has non-zero size but the last offset is 1200 which is no larger than the base offset 1200.}. deleting ${D}/A-34/00000000000000001200.timeindex, ${D}/A-34/00000000000000001200.index, and ${D}/A-34/00000000000000001200.txnindex and rebuilding index... (kafka.log.Log)`, 'corrupt-index', { path: `${D}/A-34/00000000000000001200.timeindex` }],
  ['1.1', `${TS} WARN [Log partition=A-34, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-34/00000000000000001200.log due to Corrupt index found, index file (${D}/A-34/00000000000000001200.index) has non-zero size but the last offset is 1200 which is no greater than the base offset 1200.}, recovering segment and rebuilding index files... (kafka.log.Log)`, 'corrupt-index', { path: `${D}/A-34/00000000000000001200.log` }],
  ['3.5', `${TS} WARN [LogLoader partition=A-34, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-34/00000000000000001200.log due to Corrupt index found, index file ${D}/A-34/00000000000000001200.index has non-zero size but the last offset is 1100 which is less than the base offset 1200}, recovering segment and rebuilding index files... (kafka.log.LogLoader)`, 'corrupt-index', { path: `${D}/A-34/00000000000000001200.log` }],
  ['4.1', `${TS} WARN [LogLoader partition=A-34, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-34/00000000000000001200.log due to Corrupt index found, index file ${D}/A-34/00000000000000001200.index has non-zero size but the last offset is 1100 which is less than the base offset 1200, recovering segment and rebuilding index files... (org.apache.kafka.storage.internals.log.LogLoader)`, 'corrupt-index', { path: `${D}/A-34/00000000000000001200.log` }],
  ['2.0', `org.apache.kafka.common.errors.CorruptIndexException: Corrupt index found, index file (${D}/A-34/00000000000000001200.index) has non-zero size but the last offset is 1100 which is less than the base offset 1200.`, 'corrupt-index', { last: '1100', base: '1200' }],
  ['3.5', `org.apache.kafka.common.errors.CorruptIndexException: Corrupt index found, index file ${D}/A-34/00000000000000001200.index has non-zero size but the last offset is 1100 which is less than the base offset 1200`, 'corrupt-index', { path: `${D}/A-34/00000000000000001200.index` }],
  ['1.1', `org.apache.kafka.common.errors.CorruptIndexException: Index file ${D}/A-34/00000000000000001200.index is corrupt, found 13 bytes which is neither positive nor a multiple of 8.`, 'corrupt-index', { bytes: '13' }],
  ['0.11', `${TS} ERROR Could not find offset index file corresponding to log file ${D}/A-34/00000000000000001200.log, rebuilding index... (kafka.log.Log)`, 'missing-index'],
  ['3.9', `${TS} ERROR [LogLoader partition=A-34, dir=${D}] Could not find offset index file corresponding to log file ${D}/A-34/00000000000000001200.log, recovering segment and rebuilding index files... (kafka.log.LogLoader)`, 'missing-index'],

  // Lines the probe cut short keep their meaning.
  ['any (cut)', `${TS} WARN [LogLoader partition=A-34, dir=${D}] Found a corrupted index file corresponding to log fi`, 'corrupt-index'],
  ['any (cut)', `${TS} INFO Completed load of Log(dir=${D}/A-34, topic=A, partition=34, highWatermark=0, lastStab`, 'log-load-progress'],
  ['3.8 (cut)', `${TS} INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-12 with epoch 7 in 25ms where 1ms was spent in the sch`, 'offsets-load-finished', { partition: '12', epoch: '7' }],
  ['2.8 (cut)', `${TS} INFO [GroupMetadataManager brokerId=1] Finished loading offsets and group metadata from __consumer_offsets-12 in 31 milliseconds for epoch 7, of wh`, 'offsets-load-finished', { partition: '12', epoch: '7' }],

  // ------------------------------------------------------------- the fatal append
  ['0.11', `kafka.common.InvalidOffsetException: Attempt to append an offset (1199) to position 5 no larger than the last offset appended (1250) to ${D}/A-34/00000000000000001200.index.`, 'index-append-fatal', { offset: '1199', last: '1250', path: `${D}/A-34/00000000000000001200.index` }],
  ['2.0', `org.apache.kafka.common.errors.InvalidOffsetException: Attempt to append an offset (1199) to position 5 no larger than the last offset appended (1250) to ${D}/A-34/00000000000000001200.index.`, 'index-append-fatal', { position: '5' }],
  ['3.5', `org.apache.kafka.common.errors.InvalidOffsetException: Attempt to append an offset 1199 to position 5 no larger than the last offset appended (1250) to ${D}/A-34/00000000000000001200.index`, 'index-append-fatal', { offset: '1199', path: `${D}/A-34/00000000000000001200.index` }],

  // ----------------------------------------------------------------------- cleaner
  ['0.11', `${TS} ERROR [kafka-log-cleaner-thread-0]: Error due to (kafka.log.LogCleaner)`, 'cleaner-thread-died', { thread: 'kafka-log-cleaner-thread-0' }],
  ['2.1', `${TS} WARN [kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log Log(${D}/__consumer_offsets-7). Marking its partition (__consumer_offsets-7) as uncleanable (kafka.log.LogCleaner)`, 'cleaner-uncleanable', { tp: '__consumer_offsets-7' }],
  ['4.1', `${TS} WARN [kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log UnifiedLog(dir=${D}/__consumer_offsets-7, topicId=AAAAAAAAAAAAAAAAAAAAAA, topic=__consumer_offsets, partition=7, highWatermark=10, lastStableOffset=10, logStartOffset=0, logEndOffset=10). Marking its partition (__consumer_offsets-7) as uncleanable (org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread)`, 'cleaner-uncleanable', { tp: '__consumer_offsets-7' }],
  ['1.0', `${TS} ERROR Failed to clean up log for __consumer_offsets-7 in dir ${D} due to IOException (kafka.server.LogDirFailureChannel)`, 'cleaner-io-failure', { tp: '__consumer_offsets-7', dir: D }],

  // ------------------------------------------------------ unsupported request versions
  ['0.11', `org.apache.kafka.common.errors.InvalidRequestException: Error getting request for apiKey: 0 and apiVersion: 7`, 'unsupported-request-version', { apiKey: '0', apiVersion: '7' }],
  ['0.11', `org.apache.kafka.common.errors.InvalidRequestException: Error parsing request header. Our best guess of the apiKey is: 42`, 'unsupported-request-version', { apiKey: '42' }],
  ['1.0', `org.apache.kafka.common.errors.InvalidRequestException: Error getting request for apiKey: FETCH, apiVersion: 11, connectionId: 10.0.0.5:9092-10.0.0.9:53211-7, listenerName: ListenerName(PLAINTEXT), principal: User:ANONYMOUS`, 'unsupported-request-version', { apiKey: 'FETCH', apiVersion: '11' }],
  ['2.8', `org.apache.kafka.common.errors.InvalidRequestException: Received request api key ALTER_PARTITION which is not enabled`, 'unsupported-request-version', { apiKey: 'ALTER_PARTITION' }],
  ['3.5', `org.apache.kafka.common.errors.InvalidRequestException: Received request api key PRODUCE with version 12 which is not enabled`, 'unsupported-request-version', { apiKey: 'PRODUCE', apiVersion: '12' }],
  ['4.1', `org.apache.kafka.common.errors.UnsupportedVersionException: Received request for api with key 0 (Produce) and unsupported version 2`, 'unsupported-request-version', { apiKey: '0', apiName: 'Produce', apiVersion: '2' }],
  ['4.1', `org.apache.kafka.common.errors.InvalidRequestException: Received request for disabled api with key 57 (UpdateFeatures) and version 1`, 'unsupported-request-version', { apiKey: '57' }],

  // ---------------------------------------------------------- __consumer_offsets load
  ['0.11', `${TS} INFO [Group Metadata Manager on Broker 0]: Scheduling loading of offsets and group metadata from __consumer_offsets-12 (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-started', { partition: '12' }],
  ['0.11', `${TS} INFO [Group Metadata Manager on Broker 0]: Finished loading offsets and group metadata from __consumer_offsets-12 in 402311 milliseconds. (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-finished', { partition: '12', ms: '402311' }],
  ['2.6', `${TS} INFO [GroupMetadataManager brokerId=1] Finished loading offsets and group metadata from __consumer_offsets-12 in 31 milliseconds, of which 2 milliseconds was spent in the scheduler. (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-finished', { partition: '12', schedulerMs: '2' }],
  ['2.8', `${TS} INFO [GroupMetadataManager brokerId=1] Scheduling loading of offsets and group metadata from __consumer_offsets-12 for epoch 7 (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-started', { partition: '12', epoch: '7' }],
  ['3.9', `${TS} INFO [GroupMetadataManager brokerId=1] Finished loading offsets and group metadata from __consumer_offsets-12 in 31 milliseconds for epoch 7, of which 2 milliseconds was spent in the scheduler. (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-finished', { partition: '12', epoch: '7' }],
  ['3.6', `${TS} INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-12 with epoch 7. (org.apache.kafka.coordinator.group.runtime.CoordinatorRuntime)`, 'offsets-load-finished', { partition: '12', epoch: '7' }],
  ['3.7', `${TS} INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-12 with epoch 7 and LoadSummary=LoadSummary(startTimeMs=1, endTimeMs=2, numRecords=3, numBytes=4). (org.apache.kafka.coordinator.group.runtime.CoordinatorRuntime)`, 'offsets-load-finished', { partition: '12', epoch: '7' }],
  ['4.1', `${TS} INFO [GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-12 with epoch 7 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`, 'offsets-load-started', { partition: '12', epoch: '7' }],
  ['4.1', `${TS} INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-12 with epoch 7 in 25ms where 1ms was spent in the scheduler. Loaded 812 records which total to 90211 bytes. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`, 'offsets-load-finished', { partition: '12', epoch: '7', records: '812' }],
  ['0.11', `${TS} ERROR [Group Metadata Manager on Broker 0]: Error loading offsets from __consumer_offsets-12 (kafka.coordinator.group.GroupMetadataManager)`, 'offsets-load-failed', { partition: '12' }],
  ['3.8', `${TS} WARN [GroupCoordinator id=1] Failed to complete the loading of metadata for __consumer_offsets-12 in epoch 7 since the coordinator does not exist. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`, 'offsets-load-failed', { partition: '12', epoch: '7' }],
  ['4.1', `${TS} ERROR [GroupCoordinator id=1] Failed to load metadata from __consumer_offsets-12 with epoch 7 due to org.apache.kafka.common.KafkaException: boom. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`, 'offsets-load-failed', { partition: '12', epoch: '7' }],

  // ------------------------------------------------------------------ broker shutdown
  ['0.11', `${TS} INFO [Kafka Server 0], shutting down (kafka.server.KafkaServer)`, 'shutdown-started', { id: '0' }],
  ['0.11', `${TS} INFO [Kafka Server 0], shut down completed (kafka.server.KafkaServer)`, 'shutdown-completed', { id: '0' }],
  ['3.9', `${TS} INFO [KafkaServer id=2] shutting down (kafka.server.KafkaServer)`, 'shutdown-started', { id: '2' }],
  ['3.9', `${TS} INFO [KafkaServer id=2] shut down completed (kafka.server.KafkaServer)`, 'shutdown-completed', { id: '2' }],
  ['4.1', `${TS} INFO [BrokerServer id=3] shutting down (kafka.server.BrokerServer)`, 'shutdown-started', { id: '3' }],
  ['4.1', `${TS} INFO [BrokerServer id=3] shut down completed (kafka.server.BrokerServer)`, 'shutdown-completed', { id: '3' }],
];
