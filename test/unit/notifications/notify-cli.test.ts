import { describe, expect, it } from 'vitest';
import { NotifyUsageError, parseNotifyArgs } from '../../../infra/cli/notify';

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
      ]),
    ).toEqual({
      notificationType: 'modelCreated',
      text: 'made it',
      metadata: { modelId: 4 },
      recipients: [1, 2],
      id: 'e1',
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
});
