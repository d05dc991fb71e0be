import { describe, expect, it } from 'vitest';
import { NotifyUsageError, notificationsOfFile, parseNotifyArgs } from '../../../infra/cli/notify';

describe('notify command arguments', () => {
  it('parses type, text, metadata, recipients and id', () => {
    expect(
      parseNotifyArgs([
        '--type',
        'modelCreated',
        '--text',
        'made it',
        '--metadata',
        '{"modelId":4}',
        '--recipients',
        '1, 2',
        '--id',
        'e1',
        '--ordering-key',
        'model:4',
      ]),
    ).toEqual({
      notificationType: 'modelCreated',
      text: 'made it',
      metadata: { modelId: 4 },
      recipients: [1, 2],
      id: 'e1',
      orderingKey: 'model:4',
    });
  });

  it('rejects missing options, bad JSON and bad recipients', () => {
    expect(() => parseNotifyArgs(['--text', 'x'])).toThrow(NotifyUsageError);
    expect(() => parseNotifyArgs(['--type', 't', '--text', 'x', '--metadata', '[1]'])).toThrow(
      NotifyUsageError,
    );
    expect(() => parseNotifyArgs(['--type', 't', '--text', 'x', '--metadata', '{'])).toThrow(
      NotifyUsageError,
    );
    expect(() => parseNotifyArgs(['--type', 't', '--text', 'x', '--recipients', '1,a'])).toThrow(
      NotifyUsageError,
    );
    expect(() => parseNotifyArgs(['--type', 't', '--text', 'x', '--bogus'])).toThrow(NotifyUsageError);
  });

  it('reads a JSON-lines file in order, skipping blank lines, and names the first bad line', () => {
    const line = (text: string, extra = {}) =>
      JSON.stringify({ notificationType: 'modelCreated', text, timestamp: '2026-01-01T00:00:00Z', ...extra });
    const read = notificationsOfFile(`${line('a', { orderingKey: 'model:1' })}\n\n${line('b')}\n`);
    expect(read.map((m) => [m.text, m.orderingKey])).toEqual([
      ['a', 'model:1'],
      ['b', undefined],
    ]);
    expect(() => notificationsOfFile(`${line('a')}\n[1]\n{`)).toThrow('line 2: not a JSON object');
    expect(() => notificationsOfFile(`${line('a')}\n{`)).toThrow('line 2: not JSON');
    expect(() => notificationsOfFile(line('a', { orderingKey: '' }))).toThrow(/line 1: .*orderingKey/);
    expect(() => notificationsOfFile(line('a', { orderingKey: 'k'.repeat(129) }))).toThrow(/orderingKey/);
    expect(() => notificationsOfFile('\n\n')).toThrow('the file has no notification');
  });
});
