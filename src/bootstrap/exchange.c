/* The setup exchanges of every layer above go through here, so that SHOAL_LOG=boot:debug
 * names each one and how long the PEs took to meet in it. */
#include "bootstrap.h"
#include "log.h"

int shoal_boot_allgather(const struct shoal_boot_ops *b, const char *what, const void *in,
                         void *out, size_t len)
{
    double t = SHOAL_LOG_ON(BOOT, DEBUG) ? shoal_log_now() : 0;
    int rc = b->allgather(in, out, len);
    SHOAL_LOG(BOOT, DEBUG, "%s: %s allgather of %zu bytes per PE %s after %.3f s", what,
              b->name, len, rc ? "failed" : "done", shoal_log_now() - t);
    return rc;
}

int shoal_boot_barrier(const struct shoal_boot_ops *b, const char *what)
{
    double t = SHOAL_LOG_ON(BOOT, DEBUG) ? shoal_log_now() : 0;
    int rc = b->barrier();
    SHOAL_LOG(BOOT, DEBUG, "%s: %s barrier %s after %.3f s", what, b->name,
              rc ? "failed" : "done", shoal_log_now() - t);
    return rc;
}
