//! The room's chat (A4): what a message must be (A3's text rules) and the room's budget, which
//! every member shares so that many senders cannot multiply the fan-out.

use protocol::ErrorCode;
use tokio::time::Instant;

use super::seats::Refusal;
use crate::token_bucket::TokenBucket;

/// The chat's budget: so many messages a second, in bursts of so many, over all senders.
#[derive(Debug)]
pub(super) struct Chat {
    rate: u32,
    burst: u32,
    /// Made full at the first chat.
    budget: Option<TokenBucket>,
}

impl Chat {
    /// A room's chat passing on `rate` messages a second in bursts of `burst`.
    pub(super) fn new(rate: u32, burst: u32) -> Chat {
        Chat {
            rate,
            burst,
            budget: None,
        }
    }

    /// Whether `text` goes out at `now`: checked by A3, then within the budget (a refused text
    /// costs none of it).
    pub(super) fn pass(&mut self, text: &str, now: Instant) -> Result<(), Refusal> {
        if let Err(why) = protocol::text::check_chat(text) {
            return Err(Refusal::new(ErrorCode::BadMessage, why.to_string()));
        }
        let (rate, burst) = (self.rate, self.burst);
        let budget = self
            .budget
            .get_or_insert_with(|| TokenBucket::new(rate, burst, now));
        if !budget.take(now) {
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                "the room's chat is busy; try again shortly",
            ));
        }
        Ok(())
    }
}
