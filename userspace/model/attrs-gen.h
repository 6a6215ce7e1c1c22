/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (attribute structs) */

#ifndef EW_ATTRS_GEN_H
#define EW_ATTRS_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/eastwest.h>

/* The bit of attribute type @type in a present mask. */
#define EW_ATTR_BIT(type) (1U << (type))

/* The buffer of a string attribute without max-len (longer ones are cut). */
#define EW_ATTR_STRLEN 64

/*
 * Per set: EW_<SET>_ATTRS, the set's scalar attributes that replies
 * carry, as members of a model struct: each by its name ('-' written
 * '_'), and all of them as .attrs, the struct ew_<set>_attrs that
 * ew_<set>_attr_parse() (io/attrs-gen.h) fills.
 */

#define EW_CGROUP_ATTR_MEMBERS \
	char path[EASTWEST_CGROUP_PATH_MAX + 1]; \
	uint64_t id;

struct ew_cgroup_attrs {
	EW_CGROUP_ATTR_MEMBERS
};

#define EW_CGROUP_ATTRS \
	union { \
		struct ew_cgroup_attrs attrs; \
		struct { \
			EW_CGROUP_ATTR_MEMBERS \
		}; \
	}

#define EW_JOB_ATTR_MEMBERS \
	uint32_t id; \
	char name[EASTWEST_JOB_NAME_LEN + 1]; \
	uint32_t mode; \
	uint32_t encrypt; \
	uint32_t qkey; \
	uint32_t peer_count; \
	uint32_t qp_count; \
	bool ud; \
	bool dc; \
	uint32_t psn; \
	char psn_run[EASTWEST_PSN_RUN_LEN + 1]; \
	uint32_t psn_key_check;

struct ew_job_attrs {
	EW_JOB_ATTR_MEMBERS
};

#define EW_JOB_ATTRS \
	union { \
		struct ew_job_attrs attrs; \
		struct { \
			EW_JOB_ATTR_MEMBERS \
		}; \
	}

#define EW_CONFIG_ATTR_MEMBERS \
	uint32_t mode; \
	uint32_t default_action; \
	char version[EW_ATTR_STRLEN]; \
	uint32_t job_count; \
	uint32_t peer_count; \
	uint32_t admission; \
	uint32_t admission_required; \
	uint32_t admission_ttl;

struct ew_config_attrs {
	EW_CONFIG_ATTR_MEMBERS
};

#define EW_CONFIG_ATTRS \
	union { \
		struct ew_config_attrs attrs; \
		struct { \
			EW_CONFIG_ATTR_MEMBERS \
		}; \
	}

#define EW_DEV_ATTR_MEMBERS \
	uint32_t index; \
	char name[EW_ATTR_STRLEN]; \
	uint32_t qpn_observed; \
	uint32_t qpn_sequential; \
	uint32_t qpn_order;

struct ew_dev_attrs {
	EW_DEV_ATTR_MEMBERS
};

#define EW_DEV_ATTRS \
	union { \
		struct ew_dev_attrs attrs; \
		struct { \
			EW_DEV_ATTR_MEMBERS \
		}; \
	}

#define EW_PORT_ATTR_MEMBERS \
	uint32_t num; \
	uint32_t link_layer;

struct ew_port_attrs {
	EW_PORT_ATTR_MEMBERS
};

#define EW_PORT_ATTRS \
	union { \
		struct ew_port_attrs attrs; \
		struct { \
			EW_PORT_ATTR_MEMBERS \
		}; \
	}

#define EW_GID_ATTR_MEMBERS \
	uint32_t index; \
	uint8_t gid[16]; \
	uint32_t type; \
	uint32_t ifindex; \
	char ifname[EW_ATTR_STRLEN]; \
	uint16_t vlan; \
	uint32_t vrf; \
	uint32_t protection; \
	uint32_t macsec_ifindex; \
	uint32_t macsec_offload; \
	uint32_t offload_caps; \
	uint32_t mtu;

struct ew_gid_attrs {
	EW_GID_ATTR_MEMBERS
};

#define EW_GID_ATTRS \
	union { \
		struct ew_gid_attrs attrs; \
		struct { \
			EW_GID_ATTR_MEMBERS \
		}; \
	}

#define EW_PATH_ATTR_MEMBERS \
	uint32_t dev_index; \
	char dev_name[EW_ATTR_STRLEN]; \
	uint32_t port; \
	uint32_t sgid_index; \
	uint8_t dgid[16]; \
	uint32_t protection; \
	uint32_t ifindex; \
	uint32_t macsec_ifindex; \
	uint32_t macsec_offload; \
	uint32_t ipsec_spi;

struct ew_path_attrs {
	EW_PATH_ATTR_MEMBERS
};

#define EW_PATH_ATTRS \
	union { \
		struct ew_path_attrs attrs; \
		struct { \
			EW_PATH_ATTR_MEMBERS \
		}; \
	}

#endif /* EW_ATTRS_GEN_H */
