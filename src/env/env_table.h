/* Every environment variable Shoal reads, in one table. It drives parsing,
 * SHMEM_INFO output, shoal-info and docs/environment.md; no variable is read
 * anywhere else.
 *
 * X(NAME, DEPRECATED_ALIAS, KIND, DEFAULT, ACCEPT, FIELD, MEANING)
 *   KIND: BOOL (set to anything but 0/no/false/off means on), SIZE (bytes with an
 *   optional K/M/G/T suffix, fractions allowed), INT, STR.
 *   ACCEPT narrows what a value may be, NULL for no more than KIND says: for INT
 *   "LO..HI" (either end may be left out), for STR the words allowed, "a|b|c"
 *   (the empty string means the default). A value outside it is refused
 *   with a message naming the variable and what it accepts.
 *   An alias of NULL means none; when both are set, NAME wins.
 *   Variables of class LAUNCHER are set by oshrun for its PEs; those of class
 *   FOREIGN are other software's: read only to recognise a launcher Shoal cannot
 *   talk to, or to check what a launcher provided. */
#define SHOAL_ENV_USER(X)                                                                    \
    X(SHMEM_SYMMETRIC_SIZE, "SMA_SYMMETRIC_SIZE", SIZE, "512M", NULL, symmetric_size,        \
      "Symmetric heap size per PE, in bytes; K, M, G, T suffixes (powers of 2) and "         \
      "fractions allowed")                                                                   \
    X(SHMEM_SYMMETRIC_SIZE_DEVICE, NULL, SIZE, "0", NULL, symmetric_size_device,             \
      "Device heap (SHMEM_SPACE_DEVICE) size per PE, in bytes, same suffixes; 0 = no "       \
      "device space")                                                                        \
    X(SHMEM_ENABLE_DEVICE_AWARENESS, NULL, BOOL, "0", NULL, enable_device_awareness,         \
      "Let local buffers (put sources, get destinations, fetch results, collective "         \
      "buffers) be device memory the program allocated")                                     \
    X(SHOAL_DEVICE, NULL, STR, "", "emu|cuda|rocm|none", device,                             \
      "Device backend: emu (emulated, for tests), cuda, rocm or none; default: the first "   \
      "that loads of cuda, rocm, emu")                                                       \
    X(SHOAL_DEVICE_FORCE_HMEM, NULL, BOOL, "0", NULL, device_force_hmem,                     \
      "Test knob: the network reaches a device heap that has a host alias (emu) only "       \
      "through its device-memory registration (libfabric FI_HMEM, as FI_HMEM_SYSTEM), the "  \
      "path cuda and rocm take across nodes")                                                \
    X(SHOAL_DEVICE_RING, NULL, INT, "1024", "4..", device_ring,                              \
      "Commands the ring of device-initiated communication holds (a power of two, at "       \
      "least 4); kernels wait while it is full")                                             \
    X(SHOAL_DEVICE_PROXY_ALL, NULL, BOOL, "0", NULL, device_proxy_all,                       \
      "Device-initiated communication reaches every other PE through the proxy thread, "     \
      "same-node ones too (for GPUs without peer access, and to test the proxy)")            \
    X(SHOAL_DEVICE_PROXY_SPIN_US, NULL, INT, "1000", "0..", device_proxy_spin_us,            \
      "Microseconds the proxy thread of device-initiated communication polls an empty "      \
      "ring before it sleeps")                                                               \
    X(SHMEM_DEBUG, "SMA_DEBUG", BOOL, "0", NULL, debug,                                      \
      "Check every call's arguments (PE range, symmetric address and range, alignment) and " \
      "abort with a message")                                                                \
    X(SHMEM_INFO, "SMA_INFO", BOOL, "0", NULL, info,                                         \
      "Print the library version and every environment variable with its value at start-up " \
      "(PE 0)")                                                                              \
    X(SHMEM_VERSION, "SMA_VERSION", BOOL, "0", NULL, version,                                \
      "Print the library version at start-up (PE 0)")                                        \
    X(SHOAL_SPIN_COUNT, NULL, INT, "-1", "-1..", spin_count,                                 \
      "Polls of a waited-on location before a waiting PE starts yielding its core; -1 = "    \
      "automatic: spin (yielding now and then) when the PE has a core of its own, 0 (yield " \
      "at once) when PEs outnumber cores, 200 when other work crowds the host")              \
    X(SHOAL_YIELD_SLEEP_US, NULL, INT, "50", "0..1000000", yield_sleep_us,                   \
      "Longest sleep (microseconds) a long-waiting PE takes between polls; 0 = only "        \
      "sched_yield")                                                                         \
    X(SHOAL_COLL_NODE_AWARE, NULL, BOOL, "1", NULL, coll_node_aware,                         \
      "Team barriers, small reductions and broadcasts that span nodes gather each node's "   \
      "members to one leader by shared memory, and only leaders use the network")            \
    X(SHOAL_COLL_BCAST_RING_MIN, NULL, SIZE, "64K", NULL, coll_bcast_ring_min,               \
      "Broadcasts of at least this many bytes over more than two PEs scatter the message "   \
      "down a tree, then pass the pieces around a ring; smaller ones use the tree")          \
    X(SHOAL_COLL_REDUCE_RSAG_MIN, NULL, SIZE, "0", NULL, coll_reduce_rsag_min,               \
      "Reductions of more than this many bytes use reduce-scatter + allgather; smaller "     \
      "ones recursive doubling. 0 = two channel slots (about 3.5K at 2 PEs, 1.7K at 8)")     \
    X(SHOAL_COLL_ALLTOALLS_PACK_MIN, NULL, INT, "32", NULL, coll_alltoalls_pack_min,         \
      "Strided alltoalls blocks of at least this many elements for a member over the "       \
      "network are packed into one message per member; smaller ones go as a put per "        \
      "element. 0 or less = pack every block")                                               \
    X(SHOAL_BIND, NULL, STR, "auto", NULL, bind,                                             \
      "How oshrun binds PEs to CPUs when --bind-to is not given: auto (own core when the "   \
      "PEs fit, else own hardware thread, else spread over the cores), core, hwthread, "     \
      "socket, none")                                                                        \
    X(SHOAL_BIND_LOCKDIR, NULL, STR, "/tmp", NULL, bind_lockdir,                             \
      "Where oshrun keeps a lock file per CPU it binds to, so that concurrent jobs take "    \
      "different CPUs; empty = no locks")                                                    \
    X(SHOAL_PCNTR, NULL, BOOL, "0", NULL, pcntr,                                             \
      "Count every context's puts, gets and AMOs for shmemx_pcntr_*, same-node ones "        \
      "included (a little slower); off: they report what the network transport counts")      \
    X(SHOAL_LOG, NULL, STR, "", NULL, log,                                                   \
      "Debug log channels as channel:level pairs, e.g. ofi:debug,boot:info or all:trace; "   \
      "channels boot, mem, shm, ofi, mpi, device, coll, team; levels off, info, debug, "     \
      "trace")                                                                               \
    X(SHOAL_LOG_FILE, NULL, STR, "", NULL, log_file,                                         \
      "Where SHOAL_LOG writes, instead of stderr: a file name pattern, %p the PE, %h the "   \
      "host, %j the pid (e.g. /tmp/shoal-%h-%p.log); appended to, made with mode 0600, "     \
      "refused (stderr instead) when it is a link, not a regular file, or another user's")   \
    X(SHOAL_NODE_MAP, NULL, STR, "", NULL, node_map,                                         \
      "Which PEs share a node, to test the network path on one machine: pe (each PE "        \
      "alone), block:K, or a list such as 0,0,1,1")                                          \
    X(SHOAL_BOOTSTRAP, NULL, STR, "auto", "auto|oshrun|pmix|pmi1|pmi2|mpi|single",           \
      bootstrap,                                                                             \
      "How a PE joins its job: auto (from the launcher's environment), oshrun, pmix, pmi1, " \
      "pmi2, mpi (size, rank and exchanges from MPI) or single")                             \
    X(SHOAL_TRANSPORT, NULL, STR, "ofi", "ofi|mpi|mpi-all", transport,                       \
      "How PEs on other nodes are reached: ofi (libfabric), mpi (MPI-3 RMA, under mpirun), " \
      "mpi-all (MPI-3 RMA for every PE, even on this node)")                                 \
    X(SHOAL_MPI_CONTEXT_WINDOWS, NULL, INT, "4", "0..64", mpi_context_windows,               \
      "mpi transport: window sets for created contexts, shared round robin, so one "         \
      "context's quiet does not wait for another's puts; 0 = all use the default context's") \
    X(SHMEM_OFI_PROVIDER, NULL, STR, "", NULL, ofi_provider,                                 \
      "libfabric provider for PEs on other nodes, e.g. cxi, verbs;ofi_rxm, tcp;ofi_rxm "     \
      "(default: the first that fits)")                                                      \
    X(SHMEM_OFI_FABRIC, NULL, STR, "", NULL, ofi_fabric,                                     \
      "libfabric fabric name to use (default: any)")                                         \
    X(SHMEM_OFI_DOMAIN, NULL, STR, "", NULL, ofi_domain,                                     \
      "libfabric domain (NIC) name to use (default: any)")                                   \
    X(SHMEM_OFI_INJECT_SIZE, NULL, SIZE, "0", NULL, ofi_inject_size,                         \
      "Largest put sent with fi_inject; 0 = the provider's inject size")                     \
    X(SHMEM_OFI_BOUNCE_SIZE, NULL, SIZE, "64K", NULL, ofi_bounce_size,                       \
      "Largest put from unregistered memory copied through a registered bounce buffer; "     \
      "larger ones go direct")                                                               \
    X(SHMEM_OFI_BUNDLE_SIZE, NULL, SIZE, "4K", NULL, ofi_bundle_size,                        \
      "Bytes of small puts to one PE bundled into one network write (puts up to half of "    \
      "it join); 0 = no bundling, at most SHMEM_OFI_BOUNCE_SIZE")                            \
    X(SHMEM_OFI_PROGRESS_THREAD, NULL, STR, "auto", "auto|on|off|1|0|yes|no|true|false",     \
      ofi_progress_thread,                                                                   \
      "A thread that drives libfabric while this PE computes, asleep on the provider's "     \
      "wait object while idle: auto (when the provider's data progress is manual), on (1, "  \
      "yes) or off (0, no)")                                                                 \
    X(SHMEM_OFI_LOWER_PE, NULL, BOOL, "0", NULL, ofi_lower_pe,                               \
      "Where a PE has a core of its own and its progress thread cannot be raised 10 nice "   \
      "levels above it (no CAP_SYS_NICE or RLIMIT_NICE), lower the thread that called "      \
      "shmem_init by the levels missing, so that gets from a computing PE are served at "    \
      "once; that thread (and threads it starts later) cannot be raised back")               \
    X(SHMEM_OFI_QUIET, NULL, STR, "auto", "auto|counters", ofi_quiet,                        \
      "How quiet completes puts over libfabric: auto (puts injected, one read per PE "       \
      "written, where the provider orders reads after writes) or counters (delivery-"        \
      "complete write counters)")                                                            \
    X(SHMEM_OFI_SIGNAL_WRITE, NULL, STR, "auto", "auto|on|off", ofi_signal_write,            \
      "How shmemx_signal_set and put-with-signal's SHMEM_SIGNAL_SET reach the signal word "  \
      "over libfabric: auto (an 8-byte write ordered after the payload where the provider "  \
      "lands such a write with one store: cxi; a network atomic elsewhere), on (a write, "   \
      "for a provider known to land aligned 8-byte writes whole) or off (an atomic)")        \
    X(SHMEM_OFI_STARTUP_CONNECT, NULL, STR, "auto", "auto|on|off|1|0|yes|no|true|false",     \
      ofi_startup_connect,                                                                   \
      "Connect to every PE on another node during shmem_init rather than on first use, "     \
      "where the provider connects (tcp;ofi_rxm, verbs;ofi_rxm): auto (jobs of at most 256 " \
      "PEs), on (1, yes) or off (0, no)")                                                    \
    X(SHMEM_OFI_STALL_TIMEOUT, NULL, INT, "60", "0..31536000", ofi_stall_timeout,            \
      "Seconds an operation may wait for the provider without headway (a post it keeps "     \
      "refusing, a get or counter that does not move) before the job ends naming the "       \
      "routine: a target PE that exited or became unreachable before any traffic reached "   \
      "it; 0 = wait for ever")                                                               \
    X(SHMEM_OFI_MR_CACHE, NULL, INT, "16", "0..65536", ofi_mr_cache,                         \
      "Registrations of large local buffers kept for reuse when the provider needs "         \
      "FI_MR_LOCAL; 0 = release each at completion")                                         \
    X(SHMEM_OFI_MR_LOCAL, NULL, BOOL, "0", NULL, ofi_mr_local,                               \
      "Register local buffers and pass their descriptors even when the provider does not "   \
      "ask (FI_MR_LOCAL), to exercise that path")                                            \
    X(SHMEM_OFI_ATOMIC_EMULATE, NULL, BOOL, "0", NULL, ofi_atomic_emulate,                   \
      "Compute every AMO but compare-and-swap by compare-and-swap loops, as for types the "  \
      "provider lacks (tests that fallback)")

#define SHOAL_ENV_LAUNCHER(X)                                                                \
    X(SHOAL_BOOT_FD, NULL, INT, "-1", NULL, boot_fd,                                         \
      "Set by oshrun: the PE's end of the launcher channel")                                 \
    X(SHOAL_RANK, NULL, INT, "-1", NULL, rank, "Set by oshrun: this PE's number")            \
    X(SHOAL_SIZE, NULL, INT, "0", NULL, size, "Set by oshrun: number of PEs in the job")     \
    X(SHOAL_BINDING, NULL, STR, "", NULL, binding,                                           \
      "Set by oshrun: how it bound the PEs (core, hwthread, socket or none; :shared when "   \
      "PEs share CPUs)")

#define SHOAL_ENV_FOREIGN(X)                                                                 \
    X(OMPI_COMM_WORLD_SIZE, NULL, INT, "0", NULL, foreign_ompi_size,                         \
      "Read only to detect Open MPI's mpirun")                                               \
    X(PMIX_RANK, NULL, INT, "-1", NULL, foreign_pmix_rank,                                   \
      "Read only to detect a PMIx launcher (prterun, srun --mpi=pmix)")                      \
    X(PMIX_NAMESPACE, NULL, STR, "", NULL, foreign_pmix_namespace,                           \
      "Read only to detect a PMIx launcher, together with PMIX_RANK")                        \
    X(PMI_FD, NULL, INT, "-1", NULL, foreign_pmi_fd,                                         \
      "Set by a PMI-1/2 launcher (mpiexec.hydra, srun --mpi=pmi2): its socket")              \
    X(PMI_RANK, NULL, INT, "-1", NULL, foreign_pmi_rank,                                     \
      "Set by a PMI-1/2 launcher: this process's rank")                                      \
    X(PMI_SIZE, NULL, INT, "0", NULL, foreign_pmi_size,                                      \
      "Set by a PMI-1/2 launcher: the number of processes")                                  \
    X(PMI_JOBID, NULL, STR, "", NULL, foreign_pmi_jobid,                                     \
      "Set by srun --mpi=pmi2: the job step, passed back to it")                             \
    X(PMI_PORT, NULL, STR, "", NULL, foreign_pmi_port,                                       \
      "Read only to detect a PMI launcher that offers a TCP port instead of PMI_FD")         \
    X(SLURM_NTASKS, NULL, INT, "0", NULL, foreign_slurm_ntasks, "Read only to detect srun")  \
    X(SLINGSHOT_VNIS, NULL, STR, "", NULL, slingshot_vnis,                                   \
      "Read only to warn when the cxi provider runs without a job VNI from the launcher")

#define SHOAL_ENV_TABLE(X) SHOAL_ENV_USER(X) SHOAL_ENV_LAUNCHER(X) SHOAL_ENV_FOREIGN(X)

/* SHMEM_* and SHOAL_* names that other programs of the project read, so the
 * library does not warn about them as misspellings: X(NAME, WHO). A NAME ending
 * in '_' stands for every name it begins. */
#define SHOAL_ENV_OTHER(X)                                                                   \
    X(SHOAL_CC, "oshcc: the C compiler it runs")                                             \
    X(SHOAL_CXX, "oshc++: the C++ compiler it runs")                                         \
    X(SHMEM_CC,                                                                              \
      "oshcc: the C compiler it runs, as Sandia OpenSHMEM names it (SHOAL_CC wins)")         \
    X(SHMEM_CXX,                                                                             \
      "oshc++: the C++ compiler it runs, as Sandia OpenSHMEM names it (SHOAL_CXX wins)")     \
    X(SHOAL_SANITIZE, "scripts/test.sh: the sanitizer build to test")                        \
    X(SHOAL_TEST_, "the test suite's own settings (tests/, scripts/test.sh)")
