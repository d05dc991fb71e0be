import { afterAll } from 'vitest';
import { removeTempDirs } from './temp';

afterAll(removeTempDirs);
