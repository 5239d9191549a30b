//! The status line ([`Status`]): the notice shown (for [`FLASH_MS`], or until something replaces
//! it) and the key press waiting for a second one ([`Confirm`]), which always shows its question
//! as the notice.

use super::FLASH_MS;

/// A short message in the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// What to show.
    pub text: String,
    /// Shown as an error.
    pub bad: bool,
    /// Local clock when it disappears.
    pub until_ms: u64,
}

/// A key press that needs a second press to take effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// Leave the room mid-race.
    Quit,
    /// Give up the race.
    Forfeit,
    /// Remove this player from the room (the room host).
    Kick(protocol::PlayerId),
}

/// The notice and the confirmation pending.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// Status line.
    notice: Option<Notice>,
    /// A pending confirmation.
    confirm: Option<Confirm>,
}

impl Status {
    /// The notice shown.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// The confirmation waiting for its second press.
    pub fn confirm(&self) -> Option<&Confirm> {
        self.confirm.as_ref()
    }

    /// Show `text` from local time `now` for [`FLASH_MS`].
    pub(super) fn notify(&mut self, text: impl Into<String>, bad: bool, now: u64) {
        self.notice = Some(Notice {
            text: text.into(),
            bad,
            until_ms: now + FLASH_MS,
        });
    }

    /// Show `text` as an error until something replaces it.
    pub(super) fn alert(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            bad: true,
            until_ms: u64::MAX,
        });
    }

    /// Wait for a second press of `confirm`, asking `question` until then.
    pub(super) fn ask(&mut self, confirm: Confirm, question: impl Into<String>) {
        self.confirm = Some(confirm);
        self.alert(question);
    }

    /// The confirmation pending, taken: the next key answers it.
    pub(super) fn take_confirm(&mut self) -> Option<Confirm> {
        self.confirm.take()
    }

    /// Drop a pending confirmation (its question stays until it fades or is replaced).
    pub(super) fn drop_confirm(&mut self) {
        self.confirm = None;
    }

    /// Drop the notice.
    pub(super) fn clear_notice(&mut self) {
        self.notice = None;
    }

    /// Nothing asked, nothing shown.
    pub(super) fn clear(&mut self) {
        *self = Status::default();
    }

    /// The notice fades at local time `now`.
    pub(super) fn expire(&mut self, now: u64) {
        if self.notice.as_ref().is_some_and(|n| n.until_ms <= now) {
            self.notice = None;
        }
    }
}
