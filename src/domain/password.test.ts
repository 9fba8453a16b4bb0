import { describe, expect, it } from 'vitest';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordChangeProblem } from './password';

describe('passwordChangeProblem', () => {
  const long = 'x'.repeat(PASSWORD_MIN_LENGTH);

  it('asks for the current password first', () => {
    expect(passwordChangeProblem({ current: '', next: long, repeat: long })).toMatch(/current/);
  });

  it('refuses a new password shorter than the minimum, and accepts one of exactly it', () => {
    const short = 'x'.repeat(PASSWORD_MIN_LENGTH - 1);
    expect(passwordChangeProblem({ current: 'c', next: short, repeat: short })).toMatch(
      /too short: use at least 8/,
    );
    expect(passwordChangeProblem({ current: 'c', next: long, repeat: long })).toBeNull();
  });

  it('refuses a new password longer than the maximum', () => {
    const tooLong = 'x'.repeat(PASSWORD_MAX_LENGTH + 1);
    expect(passwordChangeProblem({ current: 'c', next: tooLong, repeat: tooLong })).toMatch(
      /too long: use at most 256/,
    );
  });

  it('refuses two new passwords that differ', () => {
    expect(passwordChangeProblem({ current: 'c', next: long, repeat: `${long}!` })).toMatch(
      /do not match/,
    );
  });
});
