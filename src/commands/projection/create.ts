import { readFile } from 'node:fs/promises';
import { Args, Flags } from '@oclif/core';
import { Errors } from '../../common/errors.js';
import { NodeCommand } from '../../cli/node-command.js';
import { createProjection, PROJECTION_MODES } from '../../maint/projections/projections-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class ProjectionCreate extends NodeCommand {
  static override summary = 'Create a projection from a JavaScript file (or --query), running unless --disabled.';

  static override description = [
    'POST /projections/{mode}?name=NAME with the source as the body, sent as it is. A continuous projection keeps up',
    'with new events; a one-time projection runs to the end of the log once. --emit lets it write to streams.',
    'Exit codes: man svcdb-projection-create; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> order-totals --file order-totals.js',
    '<%= config.bin %> <%= command.id %> counter --query \'fromAll().when({$init: () => ({n: 0}), $any: (s) => { s.n++; }})\'',
  ];

  static override args = {
    name: Args.string({ description: 'Name of the projection.', required: true }),
  };

  static override flags = {
    file: Flags.string({ char: 'f', summary: 'File of the projection\'s JavaScript source.', helpValue: 'FILE', exactlyOne: ['file', 'query'] }),
    query: Flags.string({ char: 'q', summary: 'The projection\'s JavaScript source.', helpValue: 'JS', exactlyOne: ['file', 'query'] }),
    mode: Flags.string({ summary: 'How it runs.', options: [...PROJECTION_MODES], default: 'continuous' }),
    emit: Flags.boolean({ summary: 'Allow it to write events (emit, linkTo).', default: false }),
    disabled: Flags.boolean({ summary: 'Create it stopped; svcdb projection reset or the console starts it.', default: false }),
  };

  async run(): Promise<{ name: string; mode: string }> {
    const { args, flags } = await this.parse(ProjectionCreate);
    const source = flags.query ?? await readSource(String(flags.file));
    const mode = flags.mode as (typeof PROJECTION_MODES)[number];
    await createProjection(await NodeClient.connect(this.connection(flags), this.chosenNode), { name: args.name, mode, source, enabled: !flags.disabled, emit: flags.emit });
    this.log(`projection ${args.name} created (${mode}${flags.disabled ? ', disabled' : ''})`);
    return { name: args.name, mode };
  }
}

async function readSource(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw Errors.optionInvalid.create('--file', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}
