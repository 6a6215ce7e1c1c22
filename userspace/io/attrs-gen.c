// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (attribute parsers) */

#include <stdio.h>
#include <string.h>

#include "io/attrs-gen.h"

int ew_cgroup_attr_parse(struct ew_cgroup_attrs *o, uint32_t *present,
			 const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_CGROUP_PATH:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->path, sizeof(o->path), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_CGROUP_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return -1;
		o->id = mnl_attr_get_u64(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_job_attr_parse(struct ew_job_attrs *o, uint32_t *present,
		      const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_JOB_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->id = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->name, sizeof(o->name), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_JOB_MODE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->mode = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_ENCRYPT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->encrypt = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_QKEY:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->qkey = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_PEER_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->peer_count = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_QP_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->qp_count = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_UD:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return -1;
		o->ud = mnl_attr_get_u8(a);
		break;
	case EASTWEST_A_JOB_DC:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return -1;
		o->dc = mnl_attr_get_u8(a);
		break;
	case EASTWEST_A_JOB_PSN:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->psn = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_JOB_PSN_RUN:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->psn_run, sizeof(o->psn_run), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_JOB_PSN_KEY_CHECK:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->psn_key_check = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_config_attr_parse(struct ew_config_attrs *o, uint32_t *present,
			 const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_CONFIG_MODE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->mode = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_DEFAULT_ACTION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->default_action = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->version, sizeof(o->version), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_CONFIG_JOB_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->job_count = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_PEER_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->peer_count = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_ADMISSION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->admission = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_ADMISSION_REQUIRED:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return -1;
		o->admission_required = mnl_attr_get_u8(a);
		break;
	case EASTWEST_A_CONFIG_ADMISSION_TTL:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->admission_ttl = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_dev_attr_parse(struct ew_dev_attrs *o, uint32_t *present,
		      const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_DEV_INDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->index = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_DEV_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->name, sizeof(o->name), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_DEV_QPN_OBSERVED:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->qpn_observed = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_DEV_QPN_SEQUENTIAL:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->qpn_sequential = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_DEV_QPN_ORDER:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->qpn_order = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_port_attr_parse(struct ew_port_attrs *o, uint32_t *present,
		       const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_PORT_NUM:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->num = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PORT_LINK_LAYER:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->link_layer = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_gid_attr_parse(struct ew_gid_attrs *o, uint32_t *present,
		      const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_GID_INDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->index = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_GID:
		if (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(o->gid)) < 0)
			return -1;
		memcpy(o->gid, mnl_attr_get_payload(a), sizeof(o->gid));
		break;
	case EASTWEST_A_GID_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->type = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_IFINDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->ifindex = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->ifname, sizeof(o->ifname), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_GID_VLAN:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return -1;
		o->vlan = mnl_attr_get_u16(a);
		break;
	case EASTWEST_A_GID_VRF:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->vrf = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_PROTECTION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->protection = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_MACSEC_IFINDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->macsec_ifindex = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_MACSEC_OFFLOAD:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->macsec_offload = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_OFFLOAD_CAPS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->offload_caps = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_GID_MTU:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->mtu = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}

int ew_path_attr_parse(struct ew_path_attrs *o, uint32_t *present,
		       const struct nlattr *a)
{
	unsigned int type = mnl_attr_get_type(a);

	switch (type) {
	case EASTWEST_A_PATH_DEV_INDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->dev_index = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_DEV_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		snprintf(o->dev_name, sizeof(o->dev_name), "%s", mnl_attr_get_str(a));
		break;
	case EASTWEST_A_PATH_PORT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->port = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_SGID_INDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->sgid_index = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_DGID:
		if (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(o->dgid)) < 0)
			return -1;
		memcpy(o->dgid, mnl_attr_get_payload(a), sizeof(o->dgid));
		break;
	case EASTWEST_A_PATH_PROTECTION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->protection = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_IFINDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->ifindex = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_MACSEC_IFINDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->macsec_ifindex = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_MACSEC_OFFLOAD:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->macsec_offload = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_PATH_IPSEC_SPI:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		o->ipsec_spi = mnl_attr_get_u32(a);
		break;
	default:
		return 0;
	}
	*present |= EW_ATTR_BIT(type);
	return 1;
}
