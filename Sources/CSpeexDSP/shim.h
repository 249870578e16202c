#pragma once
#include <speex/speex_resampler.h>
