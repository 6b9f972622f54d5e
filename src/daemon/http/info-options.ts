/** `GET /info/options`: every option of the node with its value and source (operators only). */
import type { FastifyPluginAsync } from 'fastify';
import type { OptionInfo } from '../services/options-info.js';

export interface InfoOptionsRoutesOptions {
  options: readonly OptionInfo[];
}

const optionSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    group: { type: 'string' },
    value: { type: 'string' },
    source: { type: 'string' },
    possibleValues: { type: ['array', 'null'], items: { type: 'string' } },
    deprecated: { type: 'boolean' },
  },
  required: ['name', 'description', 'group', 'value', 'source', 'possibleValues', 'deprecated'],
} as const;

export const infoOptionsRoutes: FastifyPluginAsync<InfoOptionsRoutesOptions> = async (app, { options }) => {
  app.get('/info/options', { schema: { response: { 200: { type: 'array', items: optionSchema } } } }, async () => options);
};
