import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeParse } from '../events/compiled.js';
import { TaskOwnershipAddedData } from '../events/validators.generated.js';
import { TaskOwnershipAddedData as TaskOwnershipAddedSchema } from '../events/tasks/task-events.js';

/** The one safeParse over a compiled validator (events/compiled.ts) that the tasks and coordination folds share. */
describe('safeParse over a compiled validator', () => {
  it('answers success with the output exactly when the zod schema accepts the input', () => {
    const ownership = fc.record({ kind: fc.constantFrom('file', 'branch', 'other'), path: fc.string({ maxLength: 8 }), name: fc.string({ maxLength: 8 }) }, { requiredKeys: ['kind'] });
    const input = fc.oneof(
      fc.record({ task_id: fc.oneof(fc.constant('task_ab12'), fc.string({ maxLength: 6 })), ownership }, { requiredKeys: [] }),
      fc.anything(),
    );
    fc.assert(
      fc.property(input, (data) => {
        const fromZod = TaskOwnershipAddedSchema.safeParse(data);
        const answer = safeParse(TaskOwnershipAddedData, data);
        expect(answer.success).toBe(fromZod.success);
        if (answer.success && fromZod.success) expect(answer.data).toStrictEqual(fromZod.data);
      }),
      { numRuns: 300 },
    );
    expect(safeParse(TaskOwnershipAddedData, { task_id: 'task_ab12', ownership: { kind: 'file', path: 'src/a.ts' } })).toStrictEqual({
      success: true,
      data: { task_id: 'task_ab12', ownership: { kind: 'file', path: 'src/a.ts' } },
    });
    expect(safeParse(TaskOwnershipAddedData, { task_id: 'nope', ownership: { kind: 'file', path: 'a' } })).toStrictEqual({ success: false });
  });
});
