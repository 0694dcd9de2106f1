//! Generates `include/boltcodec.h` from the crate's `extern "C"` items with cbindgen.
//!
//! The checked-in header is the one C users compile against; this script keeps it honest:
//!
//! * by default it writes the generated header to `$OUT_DIR/boltcodec.h` and warns if
//!   the checked-in copy differs;
//! * `BOLTCODEC_UPDATE_HEADER=1` rewrites `include/boltcodec.h`;
//! * `BOLTCODEC_CHECK_HEADER=1` fails the build if it differs (CI uses this).

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=include/boltcodec.h");
    println!("cargo:rerun-if-env-changed=BOLTCODEC_UPDATE_HEADER");
    println!("cargo:rerun-if-env-changed=BOLTCODEC_CHECK_HEADER");

    // The shared library's soname: libboltcodec.so.MAJOR (the Makefile installs the
    // matching file and links).
    if env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        let major = env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".to_owned());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libboltcodec.so.{major}");
    }

    let crate_dir =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("bindings/c/cbindgen.toml is valid");
    let generated = out_dir.join("boltcodec.h");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(&generated);

    let checked_in = crate_dir.join("include").join("boltcodec.h");
    let new = fs::read(&generated).expect("the generated header is readable");
    let old = fs::read(&checked_in).unwrap_or_default();
    let flag = |name: &str| env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
    if new == old {
        return;
    }
    if flag("BOLTCODEC_UPDATE_HEADER") {
        fs::write(&checked_in, &new).expect("include/boltcodec.h is writable");
    } else if flag("BOLTCODEC_CHECK_HEADER") {
        panic!(
            "bindings/c/include/boltcodec.h is out of date with the Rust sources; \
             regenerate it with bindings/c/scripts/update-header.sh"
        );
    } else {
        println!(
            "cargo:warning=bindings/c/include/boltcodec.h is out of date; \
             run bindings/c/scripts/update-header.sh"
        );
    }
}
