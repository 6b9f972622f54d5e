/** The node's options as `GET /info/options` lists them: every option, its value and where it came from. */
import {
  configKey, formatValue, possibleValues, type OptionDefinition, type OptionSource,
} from '../../common/options/definition.js';
import type { LoadedOptions } from '../../common/options/load.js';
import { optionKeys, optionSchema } from '../../common/options/schema.js';

export interface OptionInfo {
  /** The PascalCase name, as in a --config file. */
  name: string;
  description: string;
  group: string;
  value: string;
  source: OptionSource;
  /** The allowed values, or null when the option takes free values. */
  possibleValues: string[] | null;
  deprecated: boolean;
}

export function optionsInfo(loaded: LoadedOptions): OptionInfo[] {
  return optionKeys.map((key) => {
    const definition: OptionDefinition = optionSchema[key];
    return {
      name: configKey(key),
      description: definition.description,
      group: definition.group,
      value: formatValue(definition, loaded.values[key]),
      source: loaded.sources[key],
      possibleValues: possibleValues(definition),
      deprecated: definition.deprecated !== undefined,
    };
  });
}
