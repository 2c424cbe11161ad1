/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx5.so.1: flow steering entry points (mlx5dv flow matchers and
 * actions, the direct-rule "dr" API, steering anchors). dpverbs steers
 * with ibv_create_flow only; these answer EOPNOTSUPP in their documented
 * convention.
 */

#include <stdint.h>
#include <stdio.h>

#include "dv_mlx5.h"

struct ibv_flow_action *
mlx5dv_create_flow_action_esp(struct ibv_context *ctx,
			      struct ibv_flow_action_esp_attr *esp,
			      struct mlx5dv_flow_action_esp *mlx5_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

struct ibv_flow *
mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		   struct mlx5dv_flow_match_parameters *match_value,
		   size_t num_actions,
		   struct mlx5dv_flow_action_attr actions_attr[])
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *context,
			   struct mlx5dv_flow_matcher_attr *matcher_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	DV_MLX5_NOTSUP_INT();
}

struct ibv_flow_action *
mlx5dv_create_flow_action_modify_header(
	struct ibv_context *ctx, size_t actions_sz, uint64_t actions[],
	enum mlx5_ib_uapi_flow_table_type ft_type)
{
	DV_MLX5_NOTSUP_NULL();
}

struct ibv_flow_action *
mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *ctx, size_t data_sz, void *data,
	enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type,
	enum mlx5_ib_uapi_flow_table_type ft_type)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_ibv_qp(struct ibv_qp *ibqp)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_table(struct mlx5dv_dr_table *table)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_vport(struct mlx5dv_dr_domain *domain,
				   uint32_t vport)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_drop(void)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_counter(struct mlx5dv_devx_obj *devx_obj,
				     uint32_t offset)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_modify_header(struct mlx5dv_dr_domain *domain,
				      uint32_t flags, size_t actions_sz,
				      __be64 actions[])
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_packet_reformat(
	struct mlx5dv_dr_domain *domain, uint32_t flags,
	enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type,
	size_t data_sz, void *data)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_tag(uint32_t tag_value)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_action_destroy(struct mlx5dv_dr_action *action)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_domain *
mlx5dv_dr_domain_create(struct ibv_context *ctx,
			enum mlx5dv_dr_domain_type type)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_domain_destroy(struct mlx5dv_dr_domain *domain)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dr_domain_sync(struct mlx5dv_dr_domain *domain, uint32_t flags)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_matcher *
mlx5dv_dr_matcher_create(struct mlx5dv_dr_table *table, uint16_t priority,
			 uint8_t match_criteria_enable,
			 struct mlx5dv_flow_match_parameters *mask)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_matcher_destroy(struct mlx5dv_dr_matcher *matcher)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_rule *
mlx5dv_dr_rule_create(struct mlx5dv_dr_matcher *matcher,
		      struct mlx5dv_flow_match_parameters *value,
		      size_t num_actions, struct mlx5dv_dr_action *actions[])
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_rule_destroy(struct mlx5dv_dr_rule *rule)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_table *
mlx5dv_dr_table_create(struct mlx5dv_dr_domain *domain, uint32_t level)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_table_destroy(struct mlx5dv_dr_table *table)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_meter(struct mlx5dv_dr_flow_meter_attr *attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_action_modify_flow_meter(struct mlx5dv_dr_action *action,
				   struct mlx5dv_dr_flow_meter_attr *attr,
				   __be64 modify_field_select)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dump_dr_domain(FILE *fout, struct mlx5dv_dr_domain *domain)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dump_dr_matcher(FILE *fout, struct mlx5dv_dr_matcher *matcher)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dump_dr_rule(FILE *fout, struct mlx5dv_dr_rule *rule)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dump_dr_table(FILE *fout, struct mlx5dv_dr_table *table)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_default_miss(void)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_dr_domain_set_reclaim_device_memory(struct mlx5dv_dr_domain *dmn,
					   bool enable)
{
	DV_MLX5_NOTSUP_VOID();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_devx_tir(struct mlx5dv_devx_obj *devx_obj)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_array(struct mlx5dv_dr_domain *domain,
				   size_t num_dest,
				   struct mlx5dv_dr_action_dest_attr *dests[])
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_sampler(struct mlx5dv_dr_flow_sampler_attr *attr)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_aso(struct mlx5dv_dr_domain *domain,
			    struct mlx5dv_devx_obj *devx_obj, uint32_t offset,
			    uint32_t flags, uint8_t return_reg_c)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_pop_vlan(void)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_push_vlan(struct mlx5dv_dr_domain *domain,
				  __be32 vlan_hdr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_action_modify_aso(struct mlx5dv_dr_action *action, uint32_t offset,
			    uint32_t flags, uint8_t return_reg_c)
{
	DV_MLX5_NOTSUP_INT();
}

void
mlx5dv_dr_domain_allow_duplicate_rules(struct mlx5dv_dr_domain *domain,
				       bool allow)
{
	DV_MLX5_NOTSUP_VOID();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_ib_port(struct mlx5dv_dr_domain *domain,
				     uint32_t ib_port)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dr_matcher_set_layout(struct mlx5dv_dr_matcher *matcher,
			     struct mlx5dv_dr_matcher_layout *layout)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dr_aso_other_domain_link(struct mlx5dv_devx_obj *devx_obj,
				struct mlx5dv_dr_domain *peer_dmn,
				struct mlx5dv_dr_domain *dmn, uint32_t flags,
				uint8_t return_reg_c)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dr_aso_other_domain_unlink(struct mlx5dv_devx_obj *devx_obj,
				  struct mlx5dv_dr_domain *dmn)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_steering_anchor *
mlx5dv_create_steering_anchor(struct ibv_context *context,
			      struct mlx5dv_steering_anchor_attr *attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_destroy_steering_anchor(struct mlx5dv_steering_anchor *sa)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_root_table(struct mlx5dv_dr_table *table,
					uint16_t priority)
{
	DV_MLX5_NOTSUP_NULL();
}
