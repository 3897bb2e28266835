# SPDX-License-Identifier: BSD-3-Clause
# The libraries librpma and its tests build on, each named with the Debian
# package that provides it when it is missing.

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
	message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' "
		"(or run utils/install-deps)")
endif()

# rpma_require(<prefix> <pkg-config module> <Debian package>)
function(rpma_require prefix module package)
	pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
	if(NOT ${prefix}_FOUND)
		message(FATAL_ERROR "${module} not found: install the Debian package "
			"'${package}' (or run utils/install-deps)")
	endif()
endfunction()

rpma_require(IBVERBS libibverbs libibverbs-dev)
rpma_require(RDMACM librdmacm librdmacm-dev)

# the examples, the bench and the integration and scale tests map pmem with it
if(BUILD_EXAMPLES OR BUILD_BENCH OR BUILD_TESTS)
	rpma_require(PMEM2 libpmem2 libpmem2-dev)
endif()
if(BUILD_TESTS)
	rpma_require(CMOCKA cmocka libcmocka-dev)
endif()

# what this rdma-core offers beyond the basic verbs
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_INCLUDES ${IBVERBS_INCLUDE_DIRS})
check_c_source_compiles("
#include <infiniband/verbs.h>
int main(void)
{
	struct ibv_qp_ex *qpx = 0;
	(void) IBV_QP_EX_WITH_ATOMIC_WRITE;
	if (qpx)
		ibv_wr_atomic_write(qpx, 0, 0, \"12345678\");
	return 0;
}" HAVE_IBV_ATOMIC_WRITE)
unset(CMAKE_REQUIRED_INCLUDES)

# native RDMA FLUSH (rdma-core 45+); NATIVE_FLUSH=OFF builds as without it,
# for testing a peer that cannot post one
option(NATIVE_FLUSH "post native RDMA FLUSH where rdma-core and the device offer it" ON)
if(NATIVE_FLUSH)
	set(CMAKE_REQUIRED_INCLUDES ${IBVERBS_INCLUDE_DIRS})
	check_c_source_compiles("
#include <infiniband/verbs.h>
int main(void)
{
	struct ibv_qp_ex *qpx = 0;
	(void) IBV_QP_EX_WITH_FLUSH;
	(void) IBV_ACCESS_FLUSH_PERSISTENT;
	if (qpx)
		ibv_wr_flush(qpx, 0, 0, 1, IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE);
	return 0;
}" HAVE_IBV_FLUSH)
	unset(CMAKE_REQUIRED_INCLUDES)
else()
	unset(HAVE_IBV_FLUSH CACHE)
endif()
# every part (library, unit tests with their mocks, bench) sees the same answer
if(HAVE_IBV_FLUSH)
	add_compile_definitions(HAVE_IBV_FLUSH=1)
endif()
