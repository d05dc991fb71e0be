/**
 * The schema of a notification name: one of the catalog's names, and an unknown one is named
 * (shortened) with the closest valid names and where every valid one is listed, not with all 70+.
 */
import * as z from 'zod/mini';
import { didYouMean } from '../text';

export const notificationName = <const T extends readonly [string, ...string[]]>(names: T) =>
  z.enum(names, {
    error: (issue) =>
      issue.input === undefined
        ? 'required'
        : `unknown notification type ${JSON.stringify(String(issue.input).slice(0, 100))}${didYouMean(String(issue.input), names)}; GET /webhooks/actions lists the valid ones`,
  });
