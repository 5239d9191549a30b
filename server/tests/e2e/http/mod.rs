//! The server's HTTP side: the JSON API and its schema, the plain endpoints, and the browser
//! client's assets.

pub mod api;
mod api_schema;
mod server_http;
mod web_assets;
