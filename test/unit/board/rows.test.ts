import { oneLine, orderRows, RECENTLY_ENDED, workItemRow, workItemSection } from '../../../src/board/rows';
import { renderRow } from '../../../src/board/templates';
import { sessionRecord } from '../../support/registry-record';

const facts = { node: 'implement', summary: 'Fixed it', budget: 5, webUi: null, host: 'build-box-2' };

describe("the board's rows", () => {
  it('puts a work item in its list: waiting, ended, not yet spawned, running', () => {
    const record = sessionRecord('github:octo/repo#1', [], null);
    expect(workItemSection(record)).toBe('queued');
    const tmux = { socket: 's', session: 'loop-x', created_at: record.registered_at, command: [] };
    expect(workItemSection({ ...record, tmux })).toBe('running');
    const waiting = { reason: 'gate' as const, detail: 'approve the plan?', since: record.registered_at };
    expect(workItemSection({ ...record, tmux, waiting })).toBe('needs');
    expect(workItemSection({ ...record, tmux, waiting, status: 'closed' })).toBe('ended');
    // its status in the board's words
    expect(workItemRow(record, facts).status).toBe('queued');
    expect(workItemRow({ ...record, tmux }, facts).status).toBe('running');
    expect(workItemRow({ ...record, tmux, status: 'paused' }, facts).status).toBe('paused');
    expect(workItemRow({ ...record, tmux, waiting }, facts).status).toBe('waiting: gate');
  });

  it('orders waits oldest first and ended sessions newest first, keeping only the recent ones', () => {
    const at = (minute: number) => `2026-12-05T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const waiting = (n: number, minute: number) => {
      const r = sessionRecord(`github:octo/repo#${n}`, [], null);
      return workItemRow({ ...r, waiting: { reason: 'question', detail: '?', since: at(minute) } }, facts);
    };
    const ended = (n: number, minute: number) => {
      const r = sessionRecord(`github:octo/repo#${n}`, [], null);
      return workItemRow({ ...r, status: 'closed', closed_at: at(minute) }, facts);
    };
    const rows = orderRows([ended(1, 5), waiting(2, 30), ended(3, 40), waiting(4, 10)]);
    expect(rows.map((r) => r.session)).toEqual([
      'github:octo/repo#4',
      'github:octo/repo#2',
      'github:octo/repo#3',
      'github:octo/repo#1',
    ]);
    const many = Array.from({ length: RECENTLY_ENDED + 10 }, (_, i) => ended(i + 1, i % 60));
    expect(orderRows(many)).toHaveLength(RECENTLY_ENDED);
  });

  it('renders a row with its id, its text escaped and the buttons its wait needs', () => {
    const r = sessionRecord('github:octo/repo#7', ['github:octo/repo#8'], null);
    const row = workItemRow(
      { ...r, waiting: { reason: 'permission', detail: 'Bash: <rm -rf />', since: r.registered_at } },
      facts,
    );
    const rendered = renderRow({ csrf: 'tok' }, row);
    expect(rendered.id).toBe(`w-${r.slug}`);
    expect(rendered.html).toContain(`id="row-w-${r.slug}"`);
    expect(rendered.html).toContain('Bash: &lt;rm -rf /&gt;');
    expect(rendered.html).toMatch(/value="allow"/);
    expect(rendered.html).toMatch(/value="deny"/);
    expect(rendered.html).toMatch(/value="stop"/);
    expect(rendered.html).not.toMatch(/value="approve"/);
    expect(rendered.html).toContain('name="csrf" value="tok"');
    expect(rendered.html).toContain('github:octo/repo#8');
    // the host whose worker runs its turns
    expect(rendered.html).toContain('<td>build-box-2</td>');
  });
});

describe('a row’s one line of the last turn', () => {
  it('is the first line with text, as plain text', () => {
    expect(oneLine('\n## Done: **all** tests pass\nmore')).toBe('Done: all tests pass');
    expect(oneLine('- ran `npm test`; 3 failing')).toBe('ran npm test; 3 failing');
    expect(oneLine('2. a * b stays')).toBe('a * b stays');
    expect(oneLine('   \n  ')).toBeNull();
    expect(oneLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
