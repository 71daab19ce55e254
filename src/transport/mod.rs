//! TLS stacks the driver connects through. One file per stack.

pub mod openssl;
