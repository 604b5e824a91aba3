/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host-memory.h — whether freed memory goes back to a host (src/host-memory.c).
 */
#ifndef PRECORD_HOST_MEMORY_H
#define PRECORD_HOST_MEMORY_H

#include <stdbool.h>

/*
 * Whether this machine is a VM whose balloon reports free memory to the
 * host (virtio free page reporting, on): memory freed more than a moment
 * ago is then the host's again, and the first write into it faults on the
 * host. Where it is, a consuming merge pays; elsewhere punching costs more
 * than it gives (ext4 mounted with `discard` waits for each punch).
 */
bool memory_host_reclaims(void);

#endif /* PRECORD_HOST_MEMORY_H */
