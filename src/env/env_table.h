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
 *   with a message naming the variable and what it accepts. The default may lie
 *   outside ACCEPT: it then stands for "not set", which no set value can mean.
 *   An alias of NULL means none; when both are set, NAME wins.
 *   Variables of class LAUNCHER are set by oshrun for its PEs; those of class
 *   FOREIGN are other software's: read only to recognise a launcher Shoal cannot
 *   talk to, or to check what a launcher provided. A FOREIGN value that does not
 *   parse is ignored, unless the row gives an ACCEPT: Shoal joins the job with that
 *   value, so a bad one is refused like a user's. */
#define SHOAL_ENV_USER(X)                                                                    \
    X(SHMEM_SYMMETRIC_SIZE, "SMA_SYMMETRIC_SIZE", SIZE, "512M", NULL, symmetric_size,        \
      "Symmetric heap size per PE, in bytes; K, M, G, T suffixes (powers of 2) and "         \
      "fractions allowed")                                                                   \
    X(SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES, "SMA_SYMMETRIC_HEAP_USE_HUGE_PAGES", BOOL, "0",   \
      NULL, symmetric_heap_use_huge_pages,                                                   \
      "Back the symmetric heap with huge pages of SHMEM_SYMMETRIC_HEAP_PAGE_SIZE: reserved " \
      "ones (hugetlbfs) where enough are free, else transparent ones where shmem_enabled "   \
      "allows, else normal pages with a warning; the heap rounds up to that page size")      \
    X(SHMEM_SYMMETRIC_HEAP_PAGE_SIZE, "SMA_SYMMETRIC_HEAP_PAGE_SIZE", SIZE, "2M", NULL,      \
      symmetric_heap_page_size,                                                              \
      "Huge page size for SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES: one the kernel offers "       \
      "(/sys/kernel/mm/hugepages), e.g. 2M or 1G")                                           \
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
      "Longest sleep (microseconds) a long-waiting PE takes between polls (64 times that, "  \
      "up to 4 ms, across nodes where traffic or a same-node store ends it); 0 = only "      \
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
    X(SHMEM_ALLTOALLV_TSIZE_CHK, NULL, STR, "none", "none|abort|trunc", alltoallv_tsize_chk, \
      "shmemx_alltoallv: with abort or trunc, t_sizes on entry holds the most bytes taken "  \
      "from each PE, and a longer block ends the job or is cut (t_sizes reports the cut "    \
      "size); _packed always honours target_len, cutting only with trunc")                   \
    X(SHOAL_BIND, NULL, STR, "auto", NULL, bind,                                             \
      "How oshrun binds PEs to CPUs when --bind-to is not given: auto (own core when the "   \
      "PEs fit, else own hardware thread, else spread over the cores), core, hwthread, "     \
      "socket, package, numa, l3cache, none")                                                \
    X(SHOAL_TOPOLOGY_FILE, NULL, STR, "", NULL, topology_file,                               \
      "An hwloc XML file describing the node (lstopo --of xml), read instead of this "       \
      "machine's topology by oshrun's placement and the NIC policy; hwloc's own "            \
      "HWLOC_XMLFILE works too; this one wins and is an error when unreadable")              \
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
    X(SHOAL_NODE_EXCHANGE, NULL, BOOL, "1", NULL, node_exchange,                             \
      "Start-up exchanges through one shared-memory table per host, filled by the host's "   \
      "lowest PE, where the launcher says which PEs share a host (PMIx, PMI); 0 = every "    \
      "PE gathers its own copy")                                                             \
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
    X(SHOAL_MPI_AMO, NULL, STR, "auto", "auto|mpi|msg", mpi_amo,                             \
      "mpi transport: how AMOs travel: msg (Shoal's own messages, applied by the target's "  \
      "CPU atomics), mpi (MPI-3 atomics), auto (the faster for the MPI library)")            \
    X(SHOAL_MPI_AMO_POLL_US, NULL, INT, "100", "1..1000000", mpi_amo_poll_us,                \
      "mpi transport, AMOs as messages: the longest the AMO thread sleeps between polls, "   \
      "in us: the worst-case AMO latency against a PE that computes without calling SHMEM")  \
    X(SHOAL_MPI_STALL_TIMEOUT, NULL, INT, "60", "0..31536000", mpi_stall_timeout,            \
      "mpi transport, AMOs as messages: seconds a fetching AMO or quiet waits for a PE's "   \
      "answer before ending the job with a message naming it (0: wait for ever)")            \
    X(SHMEM_OFI_PROVIDER, NULL, STR, "", NULL, ofi_provider,                                 \
      "libfabric provider for PEs on other nodes, e.g. cxi, verbs;ofi_rxm, tcp;ofi_rxm "     \
      "(default: the first that fits)")                                                      \
    X(SHMEM_OFI_PROVIDER_DISPLAY, NULL, BOOL, "0", NULL, ofi_provider_display,               \
      "PE 0 prints the provider and, for each PE of its node, the NIC and its address")      \
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
      "provider lacks (tests that fallback)")                                                \
    X(SHOAL_BOOT_TIMEOUT, NULL, INT, "60", "0..31536000", boot_timeout,                      \
      "Seconds a PE waits for its launcher (PMI-1, PMI-2, oshrun) to answer a request it "   \
      "answers at once (the greeting, a key's put or get; not a barrier, which waits for "   \
      "the other PEs) before it ends naming the launcher; 0 = wait for ever")

#define SHOAL_ENV_LAUNCHER(X)                                                                \
    X(SHOAL_BOOT_FD, NULL, INT, "-1", NULL, boot_fd,                                         \
      "Set by oshrun: the PE's end of the launcher channel")                                 \
    X(SHOAL_RANK, NULL, INT, "-1", NULL, rank, "Set by oshrun: this PE's number")            \
    X(SHOAL_SIZE, NULL, INT, "0", NULL, size, "Set by oshrun: number of PEs in the job")     \
    X(SHOAL_BINDING, NULL, STR, "", NULL, binding,                                           \
      "Set by oshrun: how it bound the PEs (core, hwthread, socket, numa, l3cache, package " \
      "or none; :shared when PEs share CPUs)")

#define SHOAL_ENV_FOREIGN(X)                                                                 \
    X(OMPI_COMM_WORLD_SIZE, NULL, INT, "0", NULL, foreign_ompi_size,                         \
      "Read only to detect Open MPI's mpirun")                                               \
    X(PMIX_RANK, NULL, INT, "-1", "0..2147483646", foreign_pmix_rank,                        \
      "Set by a PMIx launcher (mpirun, prterun, srun --mpi=pmix): this process's rank")      \
    X(PMIX_NAMESPACE, NULL, STR, "", NULL, foreign_pmix_namespace,                           \
      "Read only to detect a PMIx launcher, together with PMIX_RANK")                        \
    X(PMI_FD, NULL, INT, "-1", "0..2147483647", foreign_pmi_fd,                              \
      "Set by a PMI-1/2 launcher (mpiexec.hydra, srun --mpi=pmi2): its socket")              \
    X(PMI_RANK, NULL, INT, "-1", "0..2147483646", foreign_pmi_rank,                          \
      "Set by a PMI-1/2 launcher: this process's rank")                                      \
    X(PMI_SIZE, NULL, INT, "0", "1..2147483647", foreign_pmi_size,                           \
      "Set by a PMI-1/2 launcher: the number of processes")                                  \
    X(PMI_JOBID, NULL, STR, "", NULL, foreign_pmi_jobid,                                     \
      "Set by srun --mpi=pmi2: the job step, passed back to it")                             \
    X(PMI_PORT, NULL, STR, "", NULL, foreign_pmi_port,                                       \
      "Read only to detect a PMI launcher that offers a TCP port instead of PMI_FD")         \
    X(SLURM_NTASKS, NULL, INT, "0", NULL, foreign_slurm_ntasks, "Read only to detect srun")  \
    X(HWLOC_XMLFILE, NULL, STR, "", NULL, hwloc_xmlfile,                                     \
      "Read by hwloc itself: the topology from this XML file; Shoal names it in reports")    \
    X(SLINGSHOT_VNIS, NULL, STR, "", NULL, slingshot_vnis,                                   \
      "Read only to warn when the cxi provider runs without a job VNI from the launcher")

/* Cray OpenSHMEMX's variables (docs/extensions.md, "Coming from Cray OpenSHMEMX"), so
 * that its programs and job scripts run unchanged. Rows as in SHOAL_ENV_USER:
 * SHOAL_ENV_CX holds those Shoal honours; SHOAL_ENV_CX_SPELLING, X(NAME, SAME_AS),
 * the names it gives variables Shoal has under another name (SAME_AS, a row of the
 * table, wins when both are set); SHOAL_ENV_CX_NA, X(NAME, REASON), those accepted
 * but not applicable here: listed, and warned about once (PE 0) when set. */
#define SHOAL_ENV_CX(X)                                                                      \
    X(SHMEM_ERROR_FILE, NULL, STR, "stderr", "stderr|stdout", error_file,                    \
      "Where the library's error and warning messages go: stderr or stdout")                 \
    X(SHMEM_ABORT_ON_ERROR, NULL, BOOL, "0", NULL, abort_on_error,                           \
      "On an error the library detects, call abort() (SIGABRT, a core dump where ulimit "    \
      "-c allows) instead of ending the job with status 1")                                  \
    X(SHMEM_MEMINFO_DISPLAY, NULL, BOOL, "0", NULL, meminfo_display,                         \
      "Print the symmetric segments (sizes, addresses, what backs them) at start-up (PE 0)") \
    X(SHMEM_THREAD_SAFETY, NULL, STR, "", NULL, thread_safety,                               \
      "Set by shmem_init for the program to read: the thread level granted, "                \
      "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE (a value set before is "     \
      "replaced)")                                                                           \
    X(SHMEM_MAX_CTX, NULL, INT, "0", "0..", max_ctx,                                         \
      "Contexts the program will create per PE: a sizing hint only, as Shoal makes "         \
      "contexts on demand without a limit")                                                  \
    X(SHOAL_MAX_THREADS, NULL, INT, "64", "1..4096", max_threads,                            \
      "Threads of a PE that may be registered with shmemx_thread_register at once; each "    \
      "has a context (over the network, an endpoint) of its own")                            \
    X(SHMEM_DEBUG_LEVEL, NULL, INT, "0", "0..5", debug_level,                                \
      "Debug log level, mapped onto SHOAL_LOG (which wins when set): 1 info, 2 debug, 3-5 "  \
      "trace, for the channels of SHMEM_DEBUG_CATEGORIES (default all)")                     \
    X(SHMEM_DEBUG_CATEGORIES, NULL, STR, "", NULL, debug_categories,                         \
      "Comma list of debug log categories, each mapped onto a SHOAL_LOG channel: init, "     \
      "timers boot; locality boot, shm; mem mem; fi, nic, counters ofi; put, get, amo shm, " \
      "ofi, mpi; synch, coll, lock coll; thread ofi, team; enter all; or Shoal's channels")  \
    X(SHMEM_DEBUG_RANKS, NULL, STR, "", NULL, debug_ranks,                                   \
      "PEs that write the debug log, e.g. 0,4-7 (default all)")                              \
    X(SHMEM_LOCALITY_ONNODE, NULL, BOOL, "1", NULL, locality_onnode,                         \
      "0: PEs of one node reach each other through the network transport too, as with "      \
      "SHOAL_NODE_MAP=pe (which wins when set)")                                             \
    X(SHMEM_LOCALITY_OFFNODE, NULL, BOOL, "1", NULL, locality_offnode,                       \
      "0: no network path: a job whose PEs span nodes stops at shmem_init")                  \
    X(SHMEM_SMP_SIZE_LIMIT, NULL, STR, "-1", NULL, smp_size_limit,                           \
      "0: as SHMEM_LOCALITY_ONNODE=0; negative: no limit; a positive limit (K, M suffixes) " \
      "is accepted but not applicable: same-node transfers of every size are load/store "    \
      "copies")                                                                              \
    X(SHMEM_NUM_TEAM_PSYNC, NULL, INT, "62", "1..", num_team_psync,                          \
      "Most teams the program has alive at once per PE, besides SHMEM_TEAM_WORLD and "       \
      "SHMEM_TEAM_SHARED; at most 62, larger values are capped there")                       \
    X(SHMEM_COLL_OPT_OFF, NULL, STR, "", NULL, coll_opt_off,                                 \
      "1 (or all) turns the optimized collective algorithms off; or a comma list of "        \
      "barrier, broadcast, reduce, alltoall(s), collect, fcollect; the SHOAL_COLL_* "        \
      "variables win when set")                                                              \
    X(SHMEM_OFI_PROGRESS, NULL, STR, "", "MANUAL|AUTO|manual|auto", ofi_progress,            \
      "MANUAL: a library progress thread (SHMEM_OFI_PROGRESS_THREAD=on); AUTO: the "         \
      "provider's own progress (=off); SHMEM_OFI_PROGRESS_THREAD wins when set")             \
    X(SHMEM_OFI_GLOBAL_EXIT, NULL, BOOL, "1", NULL, ofi_global_exit,                         \
      "0: shmem_global_exit ends only the calling PE, as exit() does")                       \
    X(SHMEM_OFI_NUM_NICS, NULL, STR, "", NULL, ofi_num_nics,                                 \
      "Most NICs per node the job uses, optionally which (indices into the node's NICs, "    \
      "in name order): 2 or 2:1,3; default: all, with AUTO, when the node has several")      \
    X(SHMEM_OFI_NIC_POLICY, NULL, STR, "",                                                   \
      "BLOCK|ROUND-ROBIN|NUMA|USER|AUTO|block|round-robin|numa|user|auto", ofi_nic_policy,   \
      "How local PEs share the NICs: BLOCK (consecutive local PEs, ceil(PEs/NICs) each; "    \
      "the default with SHMEM_OFI_NUM_NICS), ROUND-ROBIN (local PE i on NIC i mod NICs), "   \
      "NUMA (the NIC on the PE's NUMA domain, else the nearest), USER "                      \
      "(SHMEM_OFI_NIC_MAPPING) or AUTO (the default on a node with several NICs: a GPU "     \
      "PE's nearest its GPU, a CPU PE's nearest its CPUs, equally near ones shared)")        \
    X(SHMEM_OFI_NIC_MAPPING, NULL, STR, "", NULL, ofi_nic_mapping,                           \
      "With SHMEM_OFI_NIC_POLICY=USER, NIC : local PEs, e.g. \"0:0-7; 1:8-15\", every "      \
      "local PE mapped once; NICs are counted among those SHMEM_OFI_NUM_NICS selects")       \
    X(SHMEM_OFI_SKIP_NIC_SELECTION, NULL, BOOL, "0", NULL, ofi_skip_nic_selection,           \
      "Use the node's first NIC (in name order), ignoring the NIC variables")                \
    X(SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST, NULL, BOOL, "0", NULL, ofi_skip_nic_symmetry_test,   \
      "Skip the check that every node has as many NICs; each node then numbers its own")

#define SHOAL_ENV_CX_SPELLING(X)                                                             \
    X(SHMEM_VERSION_DISPLAY, SHMEM_VERSION)                                                  \
    X(SHMEM_ENV_DISPLAY, SHMEM_INFO)                                                         \
    X(SHMEM_OFI_USE_PROV_NAME, SHMEM_OFI_PROVIDER)                                           \
    X(SHMEM_OFI_USE_DOMAIN_NAME, SHMEM_OFI_DOMAIN)                                           \
    X(SHMEM_OFI_USE_FABRIC_NAME, SHMEM_OFI_FABRIC)

#define SHOAL_ENV_CX_NA(X)                                                                   \
    X(SHMEM_ALLTOALL_BLOCK_SIZE,                                                             \
      "Shoal's alltoall puts each block whole, with no blocking or scratch buffer")          \
    X(SHMEM_ALLTOALL_SHORT_MSG,                                                              \
      "Shoal's alltoall has one algorithm for every size (SHOAL_COLL_ALLTOALLS_PACK_MIN "    \
      "tunes strided ones)")                                                                 \
    X(SHMEM_ALLTOALL_SYMBUF_SIZE, "Shoal's alltoall needs no scratch buffer")                \
    X(SHMEM_ALLTOALL_SYNC_FREQ,                                                              \
      "Shoal's alltoall does not bound outstanding puts; one quiet ends it")                 \
    X(SHMEM_ALLTOALL_USE_GETS, "Shoal's alltoall always puts")                               \
    X(SHMEM_USE_TREE_ALLREDUCE,                                                              \
      "Shoal picks the reduction by size (SHOAL_COLL_REDUCE_RSAG_MIN)")                      \
    X(SHMEM_REDUCE_CUTOFF_SIZE,                                                              \
      "Shoal's cutoff between reduction algorithms is SHOAL_COLL_REDUCE_RSAG_MIN")           \
    X(SHMEM_USE_LARGE_OPT_REDUCE,                                                            \
      "large reductions use reduce-scatter + allgather (SHOAL_COLL_REDUCE_RSAG_MIN)")        \
    X(SHMEM_TEAM_SMP_REDUCE,                                                                 \
      "node-aware reductions are SHOAL_COLL_NODE_AWARE's, for barriers and broadcasts too")  \
    X(SHMEM_MASSIVE_BCAST_CUTOFF,                                                            \
      "Shoal's broadcast switches to scatter + ring at SHOAL_COLL_BCAST_RING_MIN")           \
    X(SHMEM_USE_OPT_MASSIVE_BCAST,                                                           \
      "Shoal's large broadcast is always scatter + ring (SHOAL_COLL_BCAST_RING_MIN)")        \
    X(SHMEM_USE_OPTIMIZED_VSMSG_BCAST,                                                       \
      "Shoal's small broadcast is a binomial tree, node-aware by SHOAL_COLL_NODE_AWARE")     \
    X(SHMEM_TEAM_FREE_ASSO_CHILD,                                                            \
      "shmem_team_destroy in Shoal frees only the team named, never teams split from it")    \
    X(SHMEM_TEAMS_MEM_OPT_LEVEL,                                                             \
      "a Shoal team's synchronisation memory is one fixed slot of the symmetric heap")       \
    X(SHMEM_OFI_FABRIC_DISPLAY,                                                              \
      "SHOAL_LOG=ofi:info prints the fabric chosen and its limits")                          \
    X(SHMEM_OFI_USE_SEP,                                                                     \
      "Shoal gives each context an endpoint of its own, without scalable endpoints")         \
    X(SHMEM_OFI_DEFAULT_TCLASS, "Shoal asks libfabric for no traffic class")                 \
    X(SHMEM_FREEMEM_THRESHOLD, "HPE's memory layer (DSMML), which Shoal does not have")      \
    X(SHMEM_USE_DSMML, "HPE's memory layer (DSMML), which Shoal does not have")              \
    X(SHMEM_USE_DSMML_SSHEAP, "HPE's memory layer (DSMML), which Shoal does not have")       \
    X(SHMEM_OPTIMIZED_MEMCPY, "Shoal's same-node copies are the C library's memcpy")         \
    X(SHMEM_USE_SMP, "discontinued by HPE; see SHMEM_LOCALITY_ONNODE")

#define SHOAL_ENV_TABLE(X)                                                                   \
    SHOAL_ENV_USER(X) SHOAL_ENV_LAUNCHER(X) SHOAL_ENV_FOREIGN(X) SHOAL_ENV_CX(X)

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
    X(SHOAL_TEST_, "the test suite's own settings (tests/, scripts/test.sh)")                \
    X(SHOAL_CLUSTER_DIR, "scripts/cluster.sh: where the virtual cluster keeps its state")
