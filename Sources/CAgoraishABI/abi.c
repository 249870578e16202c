/*
 * Compile-time facts about include/agoraish.h that every later change must keep:
 * each configuration and callback struct begins with its uint32_t struct_size.
 */
#include "agoraish.h"

#define STRUCT_SIZE_FIRST(type) \
    _Static_assert(offsetof(type, struct_size) == 0, #type " must begin with struct_size"); \
    _Static_assert(sizeof(((type *)0)->struct_size) == 4, #type ".struct_size must be 32 bits")

STRUCT_SIZE_FIRST(agoraish_event_handler);
STRUCT_SIZE_FIRST(agoraish_engine_config);
