/// With `--features jemalloc`: jemalloc instead of the system allocator.
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    certbench::cli::main()
}
