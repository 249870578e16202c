#pragma once
#include <opus/opusenc.h>
