//! Rebuild when the browser client changes: rust-embed's `include_bytes!` tracks the files it
//! embedded, but not a file added to the folder.

fn main() {
    println!("cargo:rerun-if-changed=../client-web/public");
}
