import { EventQueue } from '../../../../src/workflows/work-item/queue';

const event = (id: string) => ({ id, text: id, source: 'test' });

describe('a work-item session queue', () => {
  it('queues in order, a kickoff or node turn first, and drops a seen id or an event while closing', () => {
    const queue = new EventQueue();
    queue.add('active', event('a'));
    queue.add('active', event('b'));
    queue.add('active', event('graph:spec'), true);
    queue.add('active', event('a'));
    queue.add('closing', event('c'));
    expect(queue.events.map((e) => e.id)).toEqual(['graph:spec', 'a', 'b']);
    expect(queue.length).toBe(3);
    expect(queue.head?.id).toBe('graph:spec');
    expect([...queue.seen]).toEqual(['a', 'b', 'graph:spec']);
  });

  it('removes the delivered event by identity, though another was queued ahead of it meanwhile', () => {
    const queue = new EventQueue({ queue: [event('a'), event('b')], seen: ['a', 'b'] });
    const delivered = queue.head;
    queue.add('active', event('kickoff'), true);
    queue.remove(delivered ?? event('none'));
    expect(queue.events.map((e) => e.id)).toEqual(['kickoff', 'b']);
    queue.add('active', event('b'));
    expect(queue.length).toBe(2);
  });
});
