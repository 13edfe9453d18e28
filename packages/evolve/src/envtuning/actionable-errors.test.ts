import { applyErrorFeedback } from '@seal/env';
import { describe, expect, it } from 'vitest';
import { envTuningStages } from './curriculum';
import { envTuningOverlay } from './envtuning-interface';

const augmented = envTuningOverlay({ stage: envTuningStages[1]! }).overlay;
const feedback = (text: string) =>
  applyErrorFeedback({ text, overlay: augmented, tools: [] });

describe('actionableErrorRewrites', () => {
  it("should name the service's login tool when a call needs a login first", () => {
    expect(
      feedback(
        '{"error": "User not authenticated. Please authenticate before posting."}',
      ),
    ).toBe(
      `{"error": "Twitter login required: call 'authenticate_twitter' with the user's username and password first, then retry posting."}`,
    );
    expect(
      feedback(
        '{"error": "User not authenticated. Please log in to view tickets."}',
      ),
    ).toContain("call 'ticket_login'");
    expect(
      feedback(
        '{"error": "User not authenticated. Please log in to create a ticket."}',
      ),
    ).toContain("call 'ticket_login'");
    expect(
      feedback(
        '{"error": "Error: User not authenticated. Please log in to view the watchlist."}',
      ),
    ).toBe(
      `{"error": "Error: Trading account login required: call 'trading_login' with the user's username and password first, then retry (to view the watchlist)."}`,
    );
    expect(
      feedback(
        '{"error": "User not authenticated. Please log in to place an order."}',
      ),
    ).toContain("call 'trading_login'");
  });

  it('should leave errors alone in the standard stages', () => {
    const standard = envTuningOverlay({ stage: envTuningStages[3]! }).overlay;
    const text =
      '{"error": "User not authenticated. Please log in to place an order."}';
    expect(applyErrorFeedback({ text, overlay: standard, tools: [] })).toBe(
      text,
    );
  });
});
