#!/bin/sh
r=${SHOAL_RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}}
exec taskset -c $((r % 2)) "$@"
