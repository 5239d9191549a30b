//! Registered players: rated races and identity, the daily challenge, and moderation.

mod daily;
mod identity;
mod moderation;
