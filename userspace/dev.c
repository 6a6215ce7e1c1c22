// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl dev show: the RDMA devices the module sees, with their ports,
 * GIDs and P_Key tables, and how predictable their QP numbers are
 * (qpn-sequential close to qpn-observed: QPNs follow each other) and whether
 * the module randomises them (qpns random, soft-RoCE) or cannot (sequential;
 * provider: the hardware picks them).
 */
#include <net/if.h>
#include <string.h>

#include "ewctl.h"
#include "ipc.h"
#include "json_out.h"
#include "parse.h"
#include "print.h"
#include "subcommands.h"

void dev_usage(FILE *f)
{
	fprintf(f, "Usage: " EW_PROG " dev show\n");
}

static struct json_object *json_gid(const struct ew_gid *g)
{
	struct json_object *o = json_object_new_object();
	char buf[EW_PEER_STRLEN], vrf[IF_NAMESIZE];

	json_object_object_add(o, "index", json_object_new_int64(g->index));
	json_object_object_add(o, "gid", json_object_new_string(
		ew_addr_format(g->gid, buf, sizeof(buf))));
	if (g->present & EW_GID_TYPE)
		json_object_object_add(o, "type", json_object_new_string(
			ew_enum_name(&ew_gid_type_names, g->type)));
	if (g->present & EW_GID_IFINDEX)
		json_object_object_add(o, "ifindex", json_object_new_int64(g->ifindex));
	if (g->present & EW_GID_IFNAME)
		json_object_object_add(o, "ifname", json_object_new_string(g->ifname));
	if (g->present & EW_GID_VLAN)
		json_object_object_add(o, "vlan", json_object_new_int64(g->vlan));
	if (g->present & EW_GID_VRF) {
		json_object_object_add(o, "vrf", json_object_new_int64(g->vrf));
		if (if_indextoname(g->vrf, vrf))
			json_object_object_add(o, "vrf_name", json_object_new_string(vrf));
	}
	if (g->present & EW_GID_MTU)
		json_object_object_add(o, "mtu", json_object_new_int64(g->mtu));
	if (g->present & EW_GID_PROTECTION)
		json_object_object_add(o, "protection",
				       ew_json_flags(&ew_protection_names, g->protection));
	if ((g->present & EW_GID_MACSEC_IFINDEX) && g->macsec_ifindex) {
		json_object_object_add(o, "macsec_ifindex",
				       json_object_new_int64(g->macsec_ifindex));
		if (if_indextoname(g->macsec_ifindex, vrf))
			json_object_object_add(o, "macsec_ifname", json_object_new_string(vrf));
		if (g->present & EW_GID_MACSEC_OFFLOAD)
			json_object_object_add(o, "macsec_offload", json_object_new_string(
				ew_enum_name(&ew_macsec_offload_names, g->macsec_offload)));
	}
	if (g->present & EW_GID_OFFLOAD_CAPS)
		json_object_object_add(o, "offload_caps",
				       ew_json_flags(&ew_offload_caps_names, g->offload_caps));
	return o;
}

static struct json_object *json_dev(const struct ew_dev_desc *dev)
{
	struct json_object *o = json_object_new_object(), *ports;
	size_t i, j;

	json_object_object_add(o, "index", json_object_new_int64(dev->index));
	json_object_object_add(o, "name", json_object_new_string(dev->name));
	if (dev->present & EW_DEV_QPN_OBSERVED)
		json_object_object_add(o, "qpn_observed",
				       json_object_new_int64(dev->qpn_observed));
	if (dev->present & EW_DEV_QPN_SEQUENTIAL)
		json_object_object_add(o, "qpn_sequential",
				       json_object_new_int64(dev->qpn_sequential));
	if (dev->present & EW_DEV_QPN_ORDER)
		json_object_object_add(o, "qpns", json_object_new_string(
			ew_enum_name(&ew_qpn_order_names, dev->qpn_order)));
	ports = json_object_new_array();
	for (i = 0; i < dev->n_ports; i++) {
		const struct ew_port *port = &dev->ports[i];
		struct json_object *p = json_object_new_object(), *a;

		json_object_object_add(p, "num", json_object_new_int64(port->num));
		json_object_object_add(p, "link_layer", json_object_new_string(
			ew_enum_name(&ew_link_layer_names, port->link_layer)));
		a = json_object_new_array();
		for (j = 0; j < port->n_gids; j++)
			json_object_array_add(a, json_gid(&port->gids[j]));
		json_object_object_add(p, "gids", a);
		a = json_object_new_array();
		for (j = 0; j < port->n_pkeys; j++)
			json_object_array_add(a, ew_json_pkey(port->pkeys[j]));
		json_object_object_add(p, "pkeys", a);
		json_object_array_add(ports, p);
	}
	json_object_object_add(o, "ports", ports);
	return o;
}

int dev_main(int argc, char *argv[])
{
	struct ew_devs devs;
	struct ewnl *nl;
	size_t i;
	int ret;

	if (argc > 0 && strcmp(argv[0], "show"))
		return ew_verb_error("dev", argc, argv, dev_usage);
	ret = ew_no_more_args(argc - (argc > 0), argv + (argc > 0));
	if (!ret)
		ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (ew_ipc_dev_dump(nl, &devs))
		return ewnl_report(nl, "dev show");
	if (ew_opts.json) {
		struct json_object *a = json_object_new_array();

		for (i = 0; i < devs.n; i++)
			json_object_array_add(a, json_dev(&devs.v[i]));
		ew_json_print(a);
	} else {
		for (i = 0; i < devs.n; i++)
			ew_print_dev(&devs.v[i]);
	}
	ew_devs_free(&devs);
	return EW_OK;
}
