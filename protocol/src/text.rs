//! Text rules of Amendment A3: what a name or a chat line may hold, the key under which two names
//! count as the same, and the scrub a client applies before a server string reaches a terminal.
//!
//! Character classes come from the Unicode data of maintained crates: general categories from
//! `unicode-properties`, NFC and NFD from `unicode-normalization`, and the confusable skeleton
//! and identifier types of Unicode TS #39 from `unicode-security`.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::GeneralSecurityProfile;

use crate::limits::MAX_CHAT_CHARS;

/// The explicit bidirectional controls (embeddings, overrides, isolates and marks). All but
/// U+061C are format characters already; chat refuses them by name so the rule does not depend
/// on a category table.
const BIDI_CONTROLS: &[char] = &[
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

/// Whether `c` is a bidirectional control.
pub fn is_bidi_control(c: char) -> bool {
    BIDI_CONTROLS.contains(&c)
}

/// Characters a name may not hold: control (Cc), format (Cf: zero-width characters, bidi
/// controls, the soft hyphen, the BOM), private-use (Co), and the line and paragraph separators
/// (they break a line as a control would). Unassigned code points are refused too: a later
/// Unicode version may make them anything.
pub fn is_forbidden_in_name(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::PrivateUse
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    )
}

/// Whether `c` is a Default_Ignorable_Code_Point that a name could otherwise hold: the Hangul
/// fillers (U+115F, U+1160, U+3164, U+FFA0) are letters (Lo) that draw nothing. unicode-security's
/// identifier types mark them `Default_Ignorable`; every other such code point is a format
/// character, a mark or unassigned, which the rules below refuse or do not count already (a test
/// checks the union against the crate's own Default_Ignorable_Code_Point table, which its TS #39
/// skeleton drops).
pub fn is_default_ignorable(c: char) -> bool {
    c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// Whether `c` shows something by itself: not white space, not a combining mark, not a
/// Default_Ignorable_Code_Point.
pub fn is_visible(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c.general_category(),
            GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        )
        && !is_forbidden_in_name(c)
        && !is_default_ignorable(c)
}

/// Whether `c` is a mark drawn over, under or around the letter before it (Mn, Me): the marks
/// that turn `host` into `hóst` or `h⃝ost`. Spacing marks (Mc, the vowel signs of Indic
/// scripts) take their own room and tell names apart, so they stay.
fn is_overlaid_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// A name in NFC with the white space at its ends trimmed.
pub fn normalize_name(raw: &str) -> String {
    let nfc: String = raw.nfc().collect();
    match nfc.trim() {
        t if t.len() == nfc.len() => nfc,
        t => t.to_owned(),
    }
}

/// The key under which two names are the same name: case-folded, decomposed (NFD) with its
/// overlaid marks removed, reduced to its TS #39 confusable skeleton (which also drops the
/// Default_Ignorable_Code_Points), then stripped and folded again (a skeleton may map to either
/// case, or to a sequence with a mark), and trimmed. `Host`, `host`, `hóst` and `hоst` with a
/// Cyrillic `о` share a key.
pub fn name_key(name: &str) -> String {
    let bare: String = name
        .to_lowercase()
        .nfd()
        .filter(|&c| !is_overlaid_mark(c))
        .collect();
    let key = unicode_security::skeleton(&bare)
        .filter(|&c| !is_overlaid_mark(c))
        .collect::<String>()
        .to_lowercase();
    // A mark on a trailing space kept the space in the name; without the mark it is an end.
    match key.trim() {
        t if t.len() == key.len() => key,
        t => t.to_owned(),
    }
}

/// Why a chat line is refused (`bad_message`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadChat {
    /// Empty, or over [`MAX_CHAT_CHARS`] characters.
    #[error("chat text must be 1..=200 characters")]
    Length,
    /// A control character (Cc) or a bidi control.
    #[error("chat text has control or bidi characters")]
    Control,
}

/// Check a chat line by A3: 1..=200 characters, no control characters, no bidi controls.
pub fn check_chat(text: &str) -> Result<(), BadChat> {
    let n = text.chars().count();
    if n == 0 || n > MAX_CHAT_CHARS {
        return Err(BadChat::Length);
    }
    if text.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return Err(BadChat::Control);
    }
    Ok(())
}

/// A server string made safe for a terminal: every control character (C0, DEL, C1, so also
/// ESC and the start of every escape sequence), bidi control and other format character becomes
/// U+FFFD, so no string can move the cursor, retitle the window or reorder what is drawn.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    // The zero-width joiner (a format character) only glues emoji together: it stays.
    let bad = |c: char| {
        c != '\u{200D}' && (c.is_control() || is_bidi_control(c) || is_forbidden_in_name(c))
    };
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if bad(c) { '\u{FFFD}' } else { c })
            .collect(),
    )
}
