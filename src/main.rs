fn main() -> std::process::ExitCode {
    certbench::cli::main()
}
