import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveProcessGraph } from '../../../src/config/process-graph-file';
import { configSchema } from '../../../src/config/schema';
import { parseYamlWithSchema } from '../../../src/config/yaml-errors';
import { DEFAULT_PROCESS_GRAPH } from '../../../src/config/process-graph';

const inline = `process:
  start: spec
  nodes:
    spec:
      kind: agent
      prompt: /the-loop:work-on {ref} --phase spec
      on:
        success: approval
    approval:
      kind: gate
      on:
        approve: done
        reject: spec
    done:
      kind: terminal
      terminal: done
    cleanup:
      kind: terminal
      terminal: cleanup
`;

describe('process: in the config', () => {
  it('is the default graph when absent, and the inline graph when given', () => {
    const none = parseYamlWithSchema('the-loop.yaml', '{}', configSchema);
    expect(resolveProcessGraph(none.process, null)).toBe(DEFAULT_PROCESS_GRAPH);
    const config = parseYamlWithSchema('the-loop.yaml', inline, configSchema);
    const graph = resolveProcessGraph(config.process, null);
    expect(graph.start).toBe('spec');
    expect(graph.nodes.approval).toEqual({
      kind: 'gate',
      question: 'approve, or reject with a reason',
      on: { approve: 'done', reject: 'spec' },
    });
  });

  it('names the file, line and field of an edge to no node', () => {
    const text = inline.replace('approve: done', 'approve: implement');
    expect(() => parseYamlWithSchema('the-loop.yaml', text, configSchema)).toThrow(
      "the-loop.yaml:12: process.nodes.approval.on.approve: no node 'implement'",
    );
  });

  it('names the line of a node kind it does not know', () => {
    const text = inline.replace('kind: gate', 'kind: wait');
    expect(() => parseYamlWithSchema('the-loop.yaml', text, configSchema)).toThrow(
      /^the-loop\.yaml:10: process\.nodes\.approval\.kind: /,
    );
  });

  it('reads a graph file the config names, its errors naming that file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'process-'));
    const graphText = inline.replace('process:\n', '').replace(/^ {2}/gm, '');
    writeFileSync(join(dir, 'graph.yaml'), graphText);
    const config = parseYamlWithSchema('the-loop.yaml', 'process:\n  file: graph.yaml\n', configSchema);
    const graph = resolveProcessGraph(config.process, join(dir, 'the-loop.yaml'));
    expect(Object.keys(graph.nodes)).toEqual(['spec', 'approval', 'done', 'cleanup']);
    writeFileSync(join(dir, 'graph.yaml'), graphText.replace('terminal: cleanup', 'terminal: done'));
    expect(() => resolveProcessGraph(config.process, join(dir, 'the-loop.yaml'))).toThrow(
      `${join(dir, 'graph.yaml')}:`,
    );
    expect(() => parseYamlWithSchema('the-loop.yaml', 'process:\n  start: a\n', configSchema)).toThrow(
      'the-loop.yaml:2: process: needs file, or start and nodes',
    );
  });
});
