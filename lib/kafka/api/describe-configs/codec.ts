// DescribeConfigs (API key 32) through kafkajs's encoder and decoder (every
// error code kept: the connection layer drops kafkajs's throwing parse step).
import { kafkajsApi } from '../../protocol/kafkajs.ts';

export const TOPIC_RESOURCE_TYPE = 2;

/** What the snapshot reads of a topic's configs. */
export interface RawDescribeConfigs {
  resources: {
    errorCode: number;
    errorMessage: string | null;
    resourceType: number;
    resourceName: string;
    /** configSource is decoded from DescribeConfigs v1 on (1 = set on the topic itself). */
    configEntries: { configName: string; configValue: string | null; configSource?: number }[];
  }[];
}

/** kafkajs's DescribeConfigs v1+ entry (the version negotiated with every broker from 2.0 on). */
export interface RawConfigEntry {
  configName: string;
  configValue: string | null;
  readOnly: boolean;
  isDefault: boolean;
  /** ConfigSource id: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default, 6 dynamic broker logger. */
  configSource: number;
  isSensitive: boolean;
}

export const DescribeConfigsWire = kafkajsApi<
  { resources: { type: number; name: string; configNames: string[] }[]; includeSynonyms: boolean },
  { resources: (Omit<RawDescribeConfigs['resources'][number], 'configEntries'> & { configEntries: RawConfigEntry[] })[] }
>('DescribeConfigs');
