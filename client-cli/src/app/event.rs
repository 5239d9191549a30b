//! The closed set of inputs to the apps ([`Event`]) and what they ask the run loop to do ([`Effect`]).

use crossterm::event::KeyEvent;
use protocol::ClientMsg;

use crate::net::NetEvent;

/// Everything that can change an app's state. Time comes in as [`Event::Tick`] so updates stay pure.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A key press.
    Key(KeyEvent),
    /// Something from the connection task.
    Net(NetEvent),
    /// The local monotonic clock, in milliseconds since the app started.
    Tick(u64),
    /// The terminal was resized (redraw only).
    Resize,
}

/// A side effect the run loop carries out for the app.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send a message to the server.
    Send(ClientMsg),
    /// Leave the program.
    Quit,
}
