#!/bin/sh
# no_hmem.sh PROVIDER TEST_ERRORS_SH ARGS...: runs test_errors.sh ARGS, a job that
# expects PROVIDER to lack FI_HMEM with RMA and atomics; skips (77) where fi_info
# shows that the installed libfabric offers it after all.
prov=$1
shift
if command -v fi_info >/dev/null 2>&1 &&
    fi_info -p "$prov" -c 'FI_HMEM|FI_RMA|FI_ATOMIC' >/dev/null 2>&1; then
    echo "skipped: libfabric provider $prov offers FI_HMEM with RMA and atomics here"
    exit 77
fi
exec bash "$@"
