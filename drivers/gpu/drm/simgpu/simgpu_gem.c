// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_vma_manager.h>

#include "simgpu_drv.h"
#include "simgpu_gem.h"

/**
 * DOC: simgpu buffer objects
 *
 * Buffers are shmem-backed GEM objects in one of two regions. System
 * memory ("memory") is ordinary pageable shmem, resident while it has
 * pages, and can be marked purgeable with DRM_IOCTL_SIMGPU_GEM_MADVISE.
 * VRAM0 ("vram0") simulates the device's local memory: its buffers are
 * shmem-backed as well but every byte is reserved against the size the
 * device reports in SIMGPU_REG_VRAM_SIZE_LO/HI, so allocation fails with
 * -ENOSPC when the local memory is full, and the reservation is released
 * when the buffer is freed. A VRAM0 buffer counts as resident for its whole
 * life, as it occupies local memory; a system buffer for the pages of its
 * shmem file that are in RAM.
 *
 * System memory is bounded the same way, by the ``sys_mem_mb`` module
 * parameter (half of RAM by default): an unprivileged client must not be
 * able to allocate more than the machine has, with nobody to blame for it.
 * No buffer may be larger than ``max_bo_mb`` nor than its region
 * (-EINVAL: a fixed limit, unlike -ENOSPC for a region full now).
 * DRM_SIMGPU_QUERY_REGIONS reports both limits.
 *
 * Nothing populates a whole buffer at once. A CPU mapping maps the pages
 * of the buffer's shmem file: they are allocated one fault at a time, in the
 * context of the faulting process, which a fatal signal stops between any
 * two pages; they count in that process's RSS (RssShmem), which the OOM
 * killer sees, and like all shmem pages are charged to the memory cgroup
 * of whoever faulted them in. A job holds only the pages it writes, found
 * and allocated one by one at submit time, charged to the submitter's
 * memory cgroup. Only a buffer exported to another device is pinned whole,
 * by the shmem helpers.
 *
 * System buffers marked DONTNEED are purgeable: the device's shrinker
 * discards the contents of those that are idle, not mapped, used by a job
 * or exported when the kernel needs memory. A purged buffer reports
 * retained 0 on its next madvise and can no longer be used nor mapped.
 */

/**
 * DOC: simgpu buffer mappings
 *
 * A CPU mapping of a buffer is a mapping of the DRM file it was made
 * through (or of the dma-buf, for a mapping of an exported buffer), as
 * drm_gem_mmap() makes it: the file, which the mapping holds until it is
 * unmapped, keeps the DRM device and the module, whose fault handler and
 * buffer release the mapping uses, even after the file descriptor was
 * closed and the driver unbound; the module cannot be unloaded while such
 * a mapping exists (``rmmod`` says it is in use). After an unbind the
 * mapping goes on working on the buffer's pages, and its unmap frees the
 * buffer and, with the last file, the device.
 *
 * The pages a mapping maps are not in the reverse map of the buffer's
 * shmem file, so truncating the file would not unmap them; nor can
 * reclaim, compaction or migration, which find a page's mappings through
 * that reverse map. A page a mapping has faulted in therefore stays in RAM,
 * where it is, until the mapping is unmapped: in effect pinned, one
 * touched page at a time (the shmem helpers pin a mapped buffer whole).
 * The shrinker purges only buffers that no mapping exists of:
 * &simgpu_bo.mmap_count counts them, raised under the buffer's
 * reservation lock by mmap(), which refuses a purged buffer, and lowered
 * when a mapping is closed, after its pages were unmapped.
 */

/* Puts a DONTNEED buffer on the purge list, once */
static void purge_list_add(struct simgpu_device *sdev,
			   struct drm_gem_shmem_object *shmem)
{
	lockdep_assert_held(&sdev->purge_lock);
	if (!list_empty(&shmem->madv_list))
		return;
	list_add_tail(&shmem->madv_list, &sdev->purge_list);
	WRITE_ONCE(sdev->purge_pages,
		   sdev->purge_pages + (shmem->base.size >> PAGE_SHIFT));
}

/* Takes a buffer off the purge list, if it is on it */
static void purge_list_del(struct simgpu_device *sdev,
			   struct drm_gem_shmem_object *shmem)
{
	lockdep_assert_held(&sdev->purge_lock);
	if (list_empty(&shmem->madv_list))
		return;
	list_del_init(&shmem->madv_list);
	WRITE_ONCE(sdev->purge_pages,
		   sdev->purge_pages - (shmem->base.size >> PAGE_SHIFT));
}

static void simgpu_bo_free(struct drm_gem_object *obj)
{
	struct simgpu_device *sdev = to_simgpu_device(obj->dev);
	struct simgpu_bo *bo = to_simgpu_bo(obj);

	mutex_lock(&sdev->purge_lock);
	purge_list_del(sdev, &bo->base);
	mutex_unlock(&sdev->purge_lock);

	/* Buffers without a region (imported ones) take no room */
	if (bo->region < DRM_SIMGPU_REGION_COUNT)
		atomic64_sub(obj->size, simgpu_region_used(sdev, bo->region));
	drm_gem_shmem_free(&bo->base);
}

/*
 * Bytes of the buffer in memory: all of a VRAM0 buffer, the pages of a
 * system buffer's shmem file that are in RAM (not swapped out or purged,
 * whether mapped right now or not). Called under the file's table_lock:
 * lockless snapshots.
 */
static size_t simgpu_bo_rss(struct drm_gem_object *obj)
{
	struct simgpu_bo *bo = to_simgpu_bo(obj);

	if (bo->region == DRM_SIMGPU_REGION_VRAM0)
		return obj->size;
	if (!obj->filp)
		return 0;

	return (size_t)READ_ONCE(obj->filp->f_mapping->nrpages) << PAGE_SHIFT;
}

/*
 * Whether the buffer's pages are in use besides its shmem file: mapped by
 * a process, held by a job, or pinned whole by the shmem helpers (vmap,
 * export). Lockless snapshot; stable under the reservation lock, which
 * the first mapping and the pins are made under.
 */
static bool simgpu_bo_in_use(struct simgpu_bo *bo)
{
	return READ_ONCE(bo->base.pages) || atomic_read(&bo->job_pins) ||
	       atomic_read(&bo->mmap_count);
}

static enum drm_gem_object_status simgpu_bo_status(struct drm_gem_object *obj)
{
	struct simgpu_bo *bo = to_simgpu_bo(obj);
	enum drm_gem_object_status status = 0;

	if (simgpu_bo_rss(obj))
		status |= DRM_GEM_OBJECT_RESIDENT;
	/*
	 * What the shrinker would purge, bar the busy check that fdinfo
	 * makes itself: not in use or shared (see simgpu_bo_purgeable()).
	 * Unlocked reads: a snapshot for statistics.
	 */
	if ((status & DRM_GEM_OBJECT_RESIDENT) &&
	    READ_ONCE(bo->base.madv) == DRM_SIMGPU_MADV_DONTNEED &&
	    !simgpu_bo_in_use(bo) && !obj->dma_buf &&
	    !drm_gem_is_imported(obj))
		status |= DRM_GEM_OBJECT_PURGEABLE;

	return status;
}

/*
 * A page of a mapped buffer, found or allocated when it is first touched:
 * one page a fault, in the faulting process, charged to its memory cgroup
 * and counted in its RSS (RssShmem). The buffer is not purged while it is
 * mapped.
 */
static vm_fault_t simgpu_bo_fault(struct vm_fault *vmf)
{
	struct drm_gem_object *obj = vmf->vma->vm_private_data;
	struct address_space *mapping = obj->filp->f_mapping;
	struct folio *folio;

	folio = shmem_read_folio_gfp(mapping, vmf->pgoff,
				     mapping_gfp_mask(mapping));
	if (IS_ERR(folio))
		return vmf_error(PTR_ERR(folio));

	folio_lock(folio);
	if (folio->mapping != mapping) {
		/* Truncated meanwhile: fault again */
		folio_unlock(folio);
		folio_put(folio);
		return VM_FAULT_NOPAGE;
	}
	vmf->page = folio_file_page(folio, vmf->pgoff);

	return VM_FAULT_LOCKED;
}

/* A copy of a mapping (fork, split, mremap): one more of the buffer */
static void simgpu_bo_vm_open(struct vm_area_struct *vma)
{
	struct drm_gem_object *obj = vma->vm_private_data;

	atomic_inc(&to_simgpu_bo(obj)->mmap_count);
	drm_gem_vm_open(vma);
}

/* Called once the mapping's pages were unmapped */
static void simgpu_bo_vm_close(struct vm_area_struct *vma)
{
	struct drm_gem_object *obj = vma->vm_private_data;

	atomic_dec(&to_simgpu_bo(obj)->mmap_count);
	drm_gem_vm_close(vma);
}

static const struct vm_operations_struct simgpu_bo_vm_ops = {
	.fault = simgpu_bo_fault,
	.open = simgpu_bo_vm_open,
	.close = simgpu_bo_vm_close,
};

/*
 * Map a buffer without populating it: the shmem helpers would get and pin
 * all of its pages at mmap() time, in one loop that neither a fatal signal
 * nor the OOM killer can stop, with the pages counted in nobody's RSS.
 * The mapping stays a mapping of the file it was made through, which
 * keeps the device and the module (see "simgpu buffer mappings" above).
 * Like any GEM mapping it holds a reference to the buffer, taken by
 * drm_gem_mmap_obj() and dropped when it is closed. mmap_lock is held,
 * which nests outside the reservation lock.
 *
 * Returns: 0, -EINVAL for a private mapping or a purged buffer, or
 * -EINTR or -ERESTARTSYS when interrupted.
 */
static int simgpu_bo_mmap(struct drm_gem_object *obj,
			  struct vm_area_struct *vma)
{
	struct simgpu_bo *bo = to_simgpu_bo(obj);
	int ret;

	if (drm_gem_is_imported(obj))
		return drm_gem_shmem_object_mmap(obj, vma);
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;

	/* The shrinker checks that nothing maps the buffer under this lock */
	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		return ret;
	if (bo->base.madv < 0) {
		/* Purged after mmap() found its offset */
		ret = -EINVAL;
	} else {
		/* Offsets in the buffer, as in its shmem file */
		vma->vm_pgoff -= drm_vma_node_start(&obj->vma_node);
		vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
		atomic_inc(&bo->mmap_count);
	}
	dma_resv_unlock(obj->resv);

	return ret;
}

static const struct drm_gem_object_funcs simgpu_gem_funcs = {
	.free = simgpu_bo_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = simgpu_bo_mmap,
	.status = simgpu_bo_status,
	.rss = simgpu_bo_rss,
	.vm_ops = &simgpu_bo_vm_ops,
};

/**
 * simgpu_gem_create_object - the &drm_driver.gem_create_object hook
 * @drm: the DRM device
 * @size: size of the object
 *
 * Allocates a &struct simgpu_bo for the shmem helpers, both for buffers
 * created by the driver and for imported ones.
 *
 * Returns: the GEM object embedded in the new buffer or an ERR_PTR().
 */
struct drm_gem_object *simgpu_gem_create_object(struct drm_device *drm,
						size_t size)
{
	struct simgpu_bo *bo;

	bo = kzalloc_obj(*bo, GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->region = DRM_SIMGPU_REGION_COUNT;
	bo->base.base.funcs = &simgpu_gem_funcs;

	return &bo->base.base;
}

/**
 * simgpu_gem_is_native - whether a GEM object is a simgpu buffer
 * @obj: the object
 *
 * Returns: true for buffers created by this driver (including ones
 * exported and imported back), false for buffers imported from other
 * devices.
 */
bool simgpu_gem_is_native(struct drm_gem_object *obj)
{
	return obj->funcs == &simgpu_gem_funcs && !drm_gem_is_imported(obj);
}

/**
 * simgpu_gem_region - the memory region of a buffer, for fdinfo
 * @obj: the object
 *
 * Returns: the region the buffer was allocated in, or
 * %DRM_SIMGPU_REGION_COUNT for buffers imported from other devices.
 */
enum drm_simgpu_region simgpu_gem_region(struct drm_gem_object *obj)
{
	if (!simgpu_gem_is_native(obj))
		return DRM_SIMGPU_REGION_COUNT;

	return to_simgpu_bo(obj)->region;
}

/**
 * simgpu_bo_job_pin - keep a buffer's pages for a job that writes it
 * @obj: a native buffer
 *
 * Takes the buffer's reservation lock, which the shrinker holds while it
 * purges, so that a purge cannot slip in between the check and the pin and
 * leave the job writing to fresh pages of a buffer userspace was told is
 * gone. Release with simgpu_bo_job_unpin().
 *
 * Returns: 0, -EINVAL for a purged buffer, -EINTR or -ERESTARTSYS when
 * interrupted.
 */
int simgpu_bo_job_pin(struct drm_gem_object *obj)
{
	struct simgpu_bo *bo = to_simgpu_bo(obj);
	int ret;

	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		return ret;
	if (bo->base.madv < 0)
		ret = -EINVAL;
	else
		atomic_inc(&bo->job_pins);
	dma_resv_unlock(obj->resv);

	return ret;
}

/* Whether the shrinker can discard the buffer; its resv lock is held */
static bool simgpu_bo_purgeable(struct simgpu_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;

	return bo->base.madv == DRM_SIMGPU_MADV_DONTNEED &&
	       !simgpu_bo_in_use(bo) && !obj->dma_buf &&
	       !drm_gem_is_imported(obj) &&
	       dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP);
}

/*
 * drm_gem_shmem_purge_locked() does not fit: it expects a buffer whose
 * pages the helpers hold mapped for the device (drm_gem_shmem_is_purgeable()
 * wants an sg table) and drops them. A simgpu buffer is purgeable only while
 * nothing uses its pages, no mapping included, so what is left is the
 * helper's tail: mark it purged, free the mmap offset and truncate the
 * shmem file. The file's size goes to 0 first: the shrinker holding the
 * resv lock is the only writer of the size. The resv lock is held.
 */
static void simgpu_bo_purge(struct simgpu_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	struct inode *inode = file_inode(obj->filp);

	bo->base.madv = -1;
	i_size_write(inode, 0);
	drm_gem_free_mmap_offset(obj);
	shmem_truncate_range(inode, 0, (loff_t)-1);
	invalidate_mapping_pages(inode->i_mapping, 0, (loff_t)-1);
}

static unsigned long simgpu_shrinker_count(struct shrinker *shrinker,
					   struct shrink_control *sc)
{
	struct simgpu_device *sdev = shrinker->private_data;

	return READ_ONCE(sdev->purge_pages) ?: SHRINK_EMPTY;
}

static unsigned long simgpu_shrinker_scan(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	struct simgpu_device *sdev = shrinker->private_data;
	struct drm_gem_shmem_object *shmem, *tmp;
	unsigned long freed = 0;

	if (!mutex_trylock(&sdev->purge_lock))
		return SHRINK_STOP;

	list_for_each_entry_safe(shmem, tmp, &sdev->purge_list, madv_list) {
		struct simgpu_bo *bo = container_of(shmem, struct simgpu_bo,
						    base);

		if (freed >= sc->nr_to_scan)
			break;
		/* A buffer being freed waits for purge_lock: still valid */
		if (!dma_resv_trylock(shmem->base.resv))
			continue;
		if (simgpu_bo_purgeable(bo)) {
			simgpu_bo_purge(bo);
			freed += shmem->base.size >> PAGE_SHIFT;
			purge_list_del(sdev, shmem);
		}
		dma_resv_unlock(shmem->base.resv);
	}
	mutex_unlock(&sdev->purge_lock);

	return freed ?: SHRINK_STOP;
}

static void simgpu_gem_fini(struct drm_device *drm, void *arg)
{
	struct simgpu_device *sdev = arg;

	shrinker_free(sdev->shrinker);
}

/**
 * simgpu_gem_init - set up buffer management of a device
 * @sdev: the device
 *
 * Registers the shrinker that purges DONTNEED system buffers.
 *
 * Returns: 0 or a negative error code.
 */
int simgpu_gem_init(struct simgpu_device *sdev)
{
	struct drm_device *drm = &sdev->drm;
	int ret;

	ret = drmm_mutex_init(drm, &sdev->purge_lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&sdev->purge_list);

	sdev->shrinker = shrinker_alloc(0, "drm-simgpu:%s",
					dev_name(drm->dev));
	if (!sdev->shrinker)
		return -ENOMEM;
	sdev->shrinker->count_objects = simgpu_shrinker_count;
	sdev->shrinker->scan_objects = simgpu_shrinker_scan;
	sdev->shrinker->private_data = sdev;
	shrinker_register(sdev->shrinker);

	return drmm_add_action_or_reset(drm, simgpu_gem_fini, sdev);
}

/* Reserve @size bytes of a region of @total bytes, never going above it */
static int simgpu_region_reserve(atomic64_t *used, u64 total, u64 size)
{
	s64 cur = atomic64_read(used);

	do {
		if (size > total - cur)
			return -ENOSPC;
	} while (!atomic64_try_cmpxchg(used, &cur, cur + size));

	return 0;
}

/**
 * simgpu_region_used - the bytes allocated in a region
 * @sdev: the device
 * @region: the region
 *
 * Returns: the region's counter of bytes allocated to buffers.
 */
atomic64_t *simgpu_region_used(struct simgpu_device *sdev,
			       enum drm_simgpu_region region)
{
	return region == DRM_SIMGPU_REGION_VRAM0 ? &sdev->vram_used :
						   &sdev->sys_used;
}

/**
 * simgpu_region_size - how many bytes buffers may take in a region
 * @sdev: the device
 * @region: the region
 *
 * Returns: the size of VRAM0, or the system memory limit.
 */
u64 simgpu_region_size(struct simgpu_device *sdev,
		       enum drm_simgpu_region region)
{
	return region == DRM_SIMGPU_REGION_VRAM0 ? sdev->vram_size :
						   sdev->sys_size;
}

/**
 * simgpu_region_max_bo_size - the largest buffer a region accepts
 * @sdev: the device
 * @region: the region
 *
 * Returns: the per-buffer limit, or the region's size if that is smaller.
 */
u64 simgpu_region_max_bo_size(struct simgpu_device *sdev,
			      enum drm_simgpu_region region)
{
	return min(sdev->max_bo_size, simgpu_region_size(sdev, region));
}

/**
 * simgpu_ioctl_gem_create - DRM_IOCTL_SIMGPU_GEM_CREATE
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_gem_create
 * @file: the client
 *
 * Returns: 0, -EINVAL for a bad argument or a size above the region's
 * largest buffer, -ENOSPC when the region is full, or another negative
 * error code.
 */
int simgpu_ioctl_gem_create(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct drm_simgpu_gem_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct simgpu_bo *bo;
	atomic64_t *used;
	u64 size;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->size || args->region >= DRM_SIMGPU_REGION_COUNT)
		return -EINVAL;
	/* The limits are page aligned, so is the size rounded up below them */
	if (args->size > simgpu_region_max_bo_size(sdev, args->region))
		return -EINVAL;
	size = PAGE_ALIGN(args->size);

	used = simgpu_region_used(sdev, args->region);
	ret = simgpu_region_reserve(used, simgpu_region_size(sdev, args->region),
				    size);
	if (ret)
		return ret;

	shmem = drm_gem_shmem_create(drm, size);
	if (IS_ERR(shmem)) {
		atomic64_sub(size, used);
		return PTR_ERR(shmem);
	}

	/*
	 * The device reaches memory by the physical address of lowmem
	 * (simgpu_hw.h): on 32-bit machines the pages must not be highmem.
	 */
	mapping_set_gfp_mask(shmem->base.filp->f_mapping,
			     mapping_gfp_mask(shmem->base.filp->f_mapping) &
			     ~__GFP_HIGHMEM);

	/* From here on the free callback returns the reservation */
	bo = to_simgpu_bo(&shmem->base);
	bo->region = args->region;

	ret = drm_gem_handle_create(file, &shmem->base, &args->handle);
	drm_gem_object_put(&shmem->base);

	return ret;
}

/**
 * simgpu_ioctl_gem_mmap_offset - DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_gem_mmap_offset
 * @file: the client
 *
 * Returns: 0, -EINVAL for non-zero flags, -ENOENT for an unknown handle.
 */
int simgpu_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct drm_simgpu_gem_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);

	return ret;
}

/**
 * simgpu_ioctl_gem_madvise - DRM_IOCTL_SIMGPU_GEM_MADVISE
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_gem_madvise
 * @file: the client
 *
 * Marks a system memory buffer purgeable (DONTNEED) or needed again
 * (WILLNEED). A purgeable buffer that has pages is reported as such in
 * fdinfo. @retained is 0 once the shrinker purged the buffer.
 *
 * Returns: 0, -EINVAL for a bad argument or a buffer not in system memory,
 * -ENOENT for an unknown handle.
 */
int simgpu_ioctl_gem_madvise(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct drm_simgpu_gem_madvise *args = data;
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->madv != DRM_SIMGPU_MADV_WILLNEED &&
	    args->madv != DRM_SIMGPU_MADV_DONTNEED)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	if (simgpu_gem_region(obj) != DRM_SIMGPU_REGION_SYSTEM) {
		ret = -EINVAL;
		goto out;
	}

	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		goto out;
	shmem = to_drm_gem_shmem_obj(obj);
	args->retained = drm_gem_shmem_madvise_locked(shmem, args->madv);
	mutex_lock(&sdev->purge_lock);
	if (args->retained && args->madv == DRM_SIMGPU_MADV_DONTNEED)
		purge_list_add(sdev, shmem);
	else
		purge_list_del(sdev, shmem);
	mutex_unlock(&sdev->purge_lock);
	dma_resv_unlock(obj->resv);

out:
	drm_gem_object_put(obj);
	return ret;
}

/* Relative jiffies until the absolute CLOCK_MONOTONIC time @timeout_ns */
static unsigned long simgpu_timeout_to_jiffies(s64 timeout_ns)
{
	s64 now = ktime_get_ns();
	u64 j;

	if (timeout_ns <= now)
		return 0;

	j = nsecs_to_jiffies64(timeout_ns - now) + 1;

	return min_t(u64, j, MAX_SCHEDULE_TIMEOUT);
}

/**
 * simgpu_ioctl_wait_bo - DRM_IOCTL_SIMGPU_WAIT_BO
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_wait_bo
 * @file: the client
 *
 * Returns: 0 once the buffer is idle, -ETIME when the timeout passed
 * first, -EINVAL for a bad argument, -ENOENT for an unknown handle,
 * -ERESTARTSYS when interrupted.
 */
int simgpu_ioctl_wait_bo(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_simgpu_wait_bo *args = data;
	struct drm_gem_object *obj;
	long ret;

	if (args->pad)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_READ, true,
				    simgpu_timeout_to_jiffies(args->timeout_ns));
	if (!ret)
		ret = -ETIME;
	else if (ret > 0)
		ret = 0;

	drm_gem_object_put(obj);

	return ret;
}
