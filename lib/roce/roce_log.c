/* SPDX-License-Identifier: BSD-3-Clause */
#include "roce_log.h"

RTE_LOG_REGISTER(dpv_logtype_roce, dpv.roce, NOTICE);
