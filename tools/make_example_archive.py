#!/usr/bin/env python3
"""Writes examples/archive/: the bundled example data root of memlayers.

A dsh-memory-layers v1.2.1 archive (formats per docs/plugin-compatibility.md, "Data layout"): the memory of one
person's agent (林舟, a backend engineer in Shanghai) from 2026-08-01 to 2026-11-29, "today"
being Sunday 2026-11-29.

    python3 tools/make_example_archive.py [--out examples/archive]

Layout written:

    <out>/hot.md                         body (~400 code points) + candidates (2) + topics (4)
    <out>/memlayers.json                 the zone the day files are dated in (Asia/Shanghai)
    <out>/cold/YYYY-MM/YYYY-MM-DD.md     one file per LOCAL date in Asia/Shanghai

A day file is a heading line `# YYYY-MM-DD` followed by one entry line per entry, oldest first,
each line ending in "\n". Entry lines use the plugin's format:

    - [2026-10-21T03:10:00.000Z] [tag] 正文 〔src:conv#seq/msgId〕

No usage.json is written (the plugin rebuilds a missing one: weight 50, never hit).

How the content is made (all deterministic: a fixed seed drives every random choice):

* ANCHORED: hand-written entries at fixed local times. Every entry a README example query
  answers is anchored, so the answers are known exactly.
* 2026-11-16 … 2026-11-29 (the two weeks the README queries most) hold anchored entries only.
* Other days get filler from hand-written pools and templates, placed by day shape (busy
  weekdays, quiet weekends and holidays, some empty days, a few bursts). Filler never uses
  the tags 约定 / 翻唱 / 旅行 / 重要 / side-project and never contains the terms the
  example queries look for (checked below), so it cannot change an example's answer.

After writing, the script re-reads the files and asserts each README answer; then it prints
the archive's facts.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import shutil
import sys
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

SEED = 20261129
TZ = ZoneInfo("Asia/Shanghai")
FIRST_DAY = date(2026, 8, 1)
TODAY = date(2026, 11, 29)  # a Sunday
HANDWRITTEN_FROM = date(2026, 11, 16)  # from this day on: anchored entries only
SOURCE_SHARE = 0.20

# Public holidays (no work, no 早报): 中秋 and 国庆.
HOLIDAYS = {date(2026, 9, 25)} | {date(2026, 10, d) for d in range(1, 8)}
# Days that hold anchored entries only (trips, the 中秋 stay at the parents').
ANCHORED_ONLY = {
    date(2026, 8, 22),
    date(2026, 8, 23),
    date(2026, 9, 25),
    date(2026, 9, 26),
    date(2026, 9, 27),
} | {date(2026, 10, d) for d in range(2, 6)}

# Terms the README's example queries look for: filler must not contain them.
RESERVED_TERMS = ["约定", "读书笔记", "笔记", "tidemark", "Rust", "GPT-4o", "Token消耗", "翻唱", "青岛", "莫干山", "火锅"]

# ---------------------------------------------------------------------------------------------
# Anchored entries: (local "MM-DD HH:MM" or "MM-DD HH:MM:SS.mmm", tag, text). Year is 2026.
# With minutes only, seconds and milliseconds are drawn from the seeded RNG.
# ---------------------------------------------------------------------------------------------
ANCHORED: list[tuple[str, str, str]] = [
    # ---- August ----
    ("08-01 10:20", "计划", "八月目标：每周跑步三次；把 tidemark 的想法落地；翻唱至少交两首"),
    ("08-02 21:14", "翻唱", "录了《晴天》的第一版 demo，副歌高音还是虚，下周重录"),
    ("08-03 09:40", "约定", "和老周约定：结算迁移项目每周一上午十点站会，雷打不动"),
    (
        "08-05 10:30",
        "工作",
        "结算系统迁移项目正式启动，记一下背景和目标：老对账库跑在 Oracle 11g 上，存了 2019 年以来的 3.2 亿行账单，"
        "每年许可费 80 多万，DBA 也只剩一个人会维护；目标是年底前迁到 PostgreSQL，分三个阶段——第一阶段（8–9 月）"
        "历史数据迁移加双写，第二阶段（10–11 月）实时对账链路改走 Kafka，第三阶段（12 月）灰度切流，每天放量 10%。"
        "我负责数据迁移和对账校验，小何负责 Kafka 链路，老周是项目 owner，产品对接人是 Vivian。风险：一是老库的 DATE "
        "字段没有时区信息，二是部分存储过程里藏着业务逻辑，没人说得清，需要先做一次全量梳理。第一周的任务：梳理 47 个"
        "存储过程，列出依赖表，估算迁移工作量。",
    ),
    ("08-07 22:05", "家庭", "朵朵今天在幼儿园学会了跳绳，连跳 12 个，回家一直要表演"),
    (
        "08-09 16:30",
        "side-project",
        "Started a Rust side project called tidemark: a tiny CLI that turns my Markdown journal into a searchable "
        "SQLite index.",
    ),
    ("08-12 07:50", "健康", "体重 76.4kg，比六月重了 2 斤，晚饭开始少吃主食"),
    ("08-14 23:10", "翻唱", "《晴天》重录完成，换了 SM58 近讲，混音用了 CLA Vocals 插件，发到 B站 了"),
    (
        "08-16 22:30",
        "side-project",
        "tidemark: chose rusqlite with the bundled feature, FTS5 works out of the box. Need a CJK tokenizer: "
        "unicode61 treats a whole Chinese sentence as one token.",
    ),
    ("08-18 12:40", "重要", "护照 2027 年 3 月到期，出国前要提前三个月续签"),
    ("08-20 21:00", "旅行", "订好了莫干山劳岭村的民宿，8 月 22 日入住一晚，680 元，含早餐"),
    ("08-22 19:40", "旅行", "到莫干山了，山里比上海低 6 度，晚上带朵朵在溪边看萤火虫"),
    ("08-23 17:50", "旅行", "莫干山回程堵在德清，开了三个半小时。下次要么周五晚上走，要么坐高铁"),
    ("08-25 20:15", "约定", "和阿雯约定：每月家庭开销超过 1.5 万就开会复盘一次"),
    ("08-27 22:40", "翻唱", "阿杰推荐我翻唱《后来》，说我的音色适合这种慢歌，先把和声扒下来"),
    (
        "08-30 21:20",
        "side-project",
        "tidemark: CJK bigram tokenizer done in about 120 lines; searching 翻唱 now finds the right notes. "
        "Next: incremental sync.",
    ),
    ("08-31 22:00", "读书", "开始读《置身事内》，兰小欢写的地方政府与经济发展，据说是近几年最好的入门书"),
    # ---- September ----
    # 2026-09-02 01:30 local is 2026-09-01T17:30Z: the file is 2026-09-02.md, not 09-01.
    ("09-02 01:30:00.000", "-", "失眠，想到对账差异可能是时区问题：Oracle 那边存的是本地时间，新库是 UTC"),
    ("09-03 15:20", "工作", "定位到对账差异：老库 DATE 存的是北京时间，迁移脚本当成 UTC 处理，差了 8 小时。PR #118 修复"),
    ("09-06 15:10", "side-project", "tidemark benchmark: 100k lines indexed in 1.8 s on the old ThinkPad; the target is under 1 s."),
    ("09-08 22:10", "读书", "读书笔记：《置身事内》第二章，土地财政的逻辑——地方政府靠土地出让金撬动基建，风险在于债务滚动"),
    ("09-09 16:05", "工作", "客服机器人的 Token消耗 本月超预算 40%，主要是 GPT-4o 的长上下文；先把历史对话截断到 20 轮"),
    (
        "09-11 18:20",
        "健康",
        "体检报告出来了，逐项记一下：身高 176cm，体重 75.8kg，BMI 24.5，刚好踩在超重线上；血压 128/84，比去年高了一点；"
        "空腹血糖 5.6，正常但接近上限；总胆固醇 5.9、低密度脂蛋白 3.8，两项都偏高，医生建议少吃红肉和油炸，三个月后复查"
        "血脂；尿酸 452，偏高，啤酒和海鲜要控制；颈椎片显示生理曲度变直，和天天低头看屏幕有关，建议显示器抬高到视线平齐，"
        "每小时起来活动五分钟；眼压正常，近视 450 度稳定；肝功能、肾功能、甲功都正常；幽门螺杆菌阴性。总结：主要问题是"
        "血脂和尿酸，决定每周跑步三次、每次至少 5 公里，晚饭少吃主食，戒掉夜宵，12 月初复查血脂和尿酸，到时候把这次的单子带上对比。",
    ),
    ("09-13 21:30", "翻唱", "《后来》和声分轨录完，主唱还差最后一段，嗓子有点哑，先停两天"),
    ("09-15 11:15", "约定", "和小何约定：代码评审 24 小时内必须给反馈，超时就直接找老周"),
    ("09-17 23:05", "翻唱", "《后来》发布了，B站 一天 1.2 万播放，是目前最高的一首"),
    (
        "09-20 22:15",
        "side-project",
        "Opened PR #123 on tidemark: incremental sync by mtime + size, so reopening a five-year journal takes "
        "40 ms instead of a full rebuild.",
    ),
    ("09-21 21:30", "计划", "中秋（9 月 25 日）回杭州爸妈家，国庆 10 月 2 日到 5 日去青岛"),
    ("09-24 20:40", "旅行", "订了国庆青岛的酒店：八大关附近，10 月 2 日到 5 日三晚，1980 元；高铁 10 月 2 日 7:40 虹桥出发"),
    ("09-25 20:30", "家庭", "中秋在杭州爸妈家过，妈做了桂花糖藕，爸说腰不太好，明天陪他去医院看看"),
    ("09-26 16:00", "家庭", "陪爸去了浙二医院，腰椎间盘轻度突出，医生说多游泳、少久坐，12 月 10 日复查"),
    ("09-27 21:00", "翻唱", "在爸妈家用手机清唱了《月亮代表我的心》，爸录下来发到了家族群"),
    ("09-28 09:05", "candidate-expired", "[计划] 周末想去看海"),
    ("09-28 21:10", "重要", "爸的医保卡和病历放在杭州家里电视柜左边抽屉，复查时间 12 月 10 日"),
    ("09-30 17:40", "工作", "迁移第一阶段验收：历史账单 3.2 亿行迁完，抽样对账零差异，老周请大家喝了奶茶"),
    # ---- October ----
    ("10-02 13:10", "旅行", "坐 7:40 的高铁到了青岛，中午在劈柴院吃海鲜，朵朵最喜欢栈桥的海鸥"),
    (
        "10-03 22:20",
        "旅行",
        "青岛第二天的行程记一下，明年再来可以照抄：早上 8 点从八大关的酒店出发，步行到第二海水浴场，人不多，朵朵在沙滩上"
        "挖了一个小时的螃蟹洞；10 点半打车去小鱼山公园，爬到山顶能看到整片红瓦绿树，拍照最好的位置在览潮阁二楼；中午在"
        "大学路附近的小馆子吃了鲅鱼饺子和辣炒蛤蜊，两个大人一个小孩 186 元，比劈柴院实惠很多；下午回酒店让朵朵睡午觉，"
        "3 点半出发去信号山，台阶多，朵朵爬到一半要抱；傍晚到栈桥看日落，海鸥多到可以直接喂，面包 5 元一袋；晚上在台东"
        "步行街逛夜市，阿雯买了两斤虾干。经验：青岛打车方便但晚高峰堵，老城区步行最好；海边风大，带小孩要多带一件外套；"
        "海鲜一定去本地人去的店，景区周边价格能贵一倍。",
    ),
    ("10-04 21:45", "旅行", "去了青岛啤酒博物馆，阿雯说原浆比瓶装好喝；晚上在八大关散步，路灯下的老别墅很好看"),
    ("10-05 19:30", "旅行", "从青岛回上海。这趟比预算多花了 700，主要多在海鲜上，朵朵说明年还要来"),
    ("10-05 21:50", "开销", "国庆青岛游总计 6240 元：酒店 1980，高铁 1650，吃饭 1880，门票和杂项 730"),
    ("10-10 22:30", "翻唱", "开始练《光年之外》，原调太高，降了两个 key"),
    (
        "10-11 16:40",
        "side-project",
        "tidemark: merged PR #123 after fixing a bug where files edited within the same second were skipped; "
        "added a content-hash fallback.",
    ),
    ("10-14 17:30", "工作", "Token消耗 周报：意图分类切到 GPT-4o-mini 后，日均 Token消耗 从 310 万降到 120 万，效果几乎没掉"),
    ("10-16 15:00", "约定", "和 Vivian 约定：需求变更一律走工单，不再接受口头改需求"),
    ("10-18 21:40", "翻唱", "《光年之外》录完了，自己听着还行，阿雯说高音像在喊"),
    ("10-20 22:30", "读书", "开始读《长安的荔枝》，马伯庸，两个晚上就能读完的那种"),
    (
        "10-22 22:50",
        "读书",
        "读书笔记：《长安的荔枝》前半本——李善德用驿站接力加盐洗竹筒，把荔枝保鲜从 3 天拉到 11 天，本质是一个供应链工程问题",
    ),
    (
        "10-24 15:30",
        "读书",
        "读书笔记：《长安的荔枝》读完了。故事很简单：九品小官李善德被派了一个几乎不可能的差事——把岭南的新鲜荔枝在贵妃"
        "生日前运到长安，五千里路，荔枝一日色变、二日香变、三日味变。他的做法很像我们做项目：先做实验拿数据（分几路人马"
        "同时试运，记录每一段的耗时和损耗），再根据数据设计方案（驿站接力、分枝保鲜、盐洗竹筒、走海路还是陆路），最后是"
        "资源协调，而真正的难点恰恰在这里——每一个环节都牵涉不同的衙门和利益。读完最大的感受有两点：第一，再荒唐的需求，"
        "拆开看都是一个个可以计算的工程问题；第二，项目成了，功劳是上面的，代价却是沿途驿站和百姓承担的。这和结算迁移里"
        "不计成本要求零差异的压力有点像，值得和老周聊聊怎么把代价摆到桌面上。",
    ),
    ("10-25 21:15", "side-project", "tidemark: someone on Reddit asked for Windows support; path handling with backslashes is the blocker."),
    ("10-26 10:20", "重要", "公司年假今年还剩 6 天，12 月 31 日清零，记得在元旦前休掉"),
    ("10-27 23:20", "翻唱", "《光年之外》重混了一版，B站 播放 8000，评论说混响太多"),
    (
        "10-29 22:40",
        "读书",
        "读书笔记：DDIA 第 3 章 Storage and Retrieval——LSM-Tree 写放大小、读要查多层，B-Tree 正好相反；SQLite 是 B-Tree，"
        "所以批量导入一定要放在一个事务里",
    ),
    ("10-31 19:20", "家庭", "万圣节，朵朵扮成小南瓜去楼下邻居家要糖，要到了一大袋"),
    # ---- November ----
    (
        "11-01 21:30",
        "计划",
        "十月复盘，顺便定十一月的计划。十月做成的事：国庆青岛带全家玩了四天，朵朵很开心；《光年之外》录完发了，虽然"
        "混响太多，但这是第一首自己从扒谱、降调、录音到混音全流程做完的歌；读完了《长安的荔枝》和 DDIA 前三章；迁移项目"
        "第二阶段按时开工。没做好的：跑步只跑了 7 次，离每周三次差得远；十月有四个晚上加班到 11 点以后，周三的游泳课缺了"
        "两次，朵朵有意见；体重没降。十一月计划：一，工作上把实时对账链路的压测和告警做完，灰度方案月底前评审；二，每周"
        "跑三次，周二、周四晚上和周六早上，每次 5 公里；三，和阿杰合一首歌，先定《晴天》；四，tidemark 发 v0.2，把时间"
        "窗口查询做完；五，每周三晚上雷打不动陪朵朵上游泳课。",
    ),
    ("11-02 10:40", "工作", "迁移第二阶段：实时对账链路切到 Kafka，压测 QPS 峰值 4200，延迟 P99 120ms"),
    ("11-03 22:15", "读书", "读书笔记：《被讨厌的勇气》——课题分离，别人怎么评价我是别人的课题，我能管的只有自己的选择"),
    ("11-05 21:20", "约定", "和阿杰约定：每两周合一次歌，地点在他家附近的琴房"),
    ("11-07 17:30", "翻唱", "和阿杰第一次合练《晴天》，他弹吉他我唱，用手机录了一段视频"),
    ("11-08 20:50", "side-project", "tidemark v0.2.0 released on crates.io: time-window queries such as 'last week' and 上周 now work."),
    ("11-10 08:20", "健康", "感冒了，嗓子疼，翻唱暂停一周，多喝水"),
    ("11-13 16:20", "工作", "PR #131 合入：对账差异超过万分之一就电话告警"),
    # The Sunday evening before "last week": a 约定 that is NOT in 2026-11-16..22.
    (
        "11-14 16:10",
        "side-project",
        "tidemark design notes, so I stop re-deciding them: (1) Markdown files stay the source of truth and the "
        "SQLite index is disposable, so a corrupted index is fixed by deleting it; (2) sync compares size, mtime and "
        "a content hash, never mtime alone, because editors on Windows round mtime to two seconds; (3) time windows "
        "are a WHERE clause on an indexed local-date column, applied before BM25, not a score bonus; (4) CJK text is "
        "split into bigrams at index time and at query time by the same function; (5) no background daemon.",
    ),
    ("11-15 23:30", "约定", "约定：以后周日晚上不看工作消息，真有急事打电话"),
    # ---- 2026-11-16 … 2026-11-22: "last week" seen from 2026-11-29 ----
    # 07:45 local on Monday is 2026-11-15T23:45Z: the UTC date is the 15th, the local date the 16th.
    ("11-16 07:45", "约定", "和阿雯约定：每周三晚上我不加班，固定接朵朵去上游泳课"),
    ("11-16 08:55", "早报", "早报：上海本周 6–14℃，周四有雨；A股上周五收跌 0.8%；SQLite 发布新版本，JSONB 函数更快了"),
    ("11-16 10:20", "工作", "周一站会：第三阶段灰度方案定稿，本周三评审"),
    ("11-16 19:30", "饮食", "晚饭吃了番茄牛腩，阿雯做的，朵朵吃了两碗饭"),
    ("11-17 09:05", "早报", "早报：人民币兑美元 7.12；本周五有寒潮；双十一快递量同比增长 12%"),
    (
        "11-17 14:30",
        "工作",
        "和小何结对排查 Kafka 消费延迟，原因是一个分区的 consumer 卡在大消息上，把 max.poll.records 调到 200 解决",
    ),
    ("11-17 21:50", "-", "今天状态一般，写了两小时代码只改掉一个 bug"),
    ("11-18 09:10", "早报", "早报：上海今天多云 9–15℃；港股科技股普涨；Kubernetes 新版本发布"),
    ("11-18 14:05", "约定", "和产品约定：结算迁移灰度从 12 月 1 日开始，每天放量 10%，有异常立刻回滚"),
    ("11-18 18:40", "家庭", "接朵朵去游泳课，她今天敢把头埋进水里了"),
    ("11-18 22:15", "翻唱", "阿杰发来《晴天》的吉他伴奏，比原版慢了 4 BPM，更好唱"),
    ("11-19 08:50", "早报", "早报：上海今天小雨 10–13℃；CPI 同比上涨 0.3%；Chrome 更新修复高危漏洞"),
    ("11-19 11:00", "工作", "复盘 GPT-4o 调用：加了语义缓存后命中率 62%，Token消耗 环比下降 18%"),
    ("11-19 20:30", "健康", "跑步 5 公里，配速 6 分 10 秒，膝盖没疼"),
    ("11-20 09:00", "早报", "早报：上海今天阴 8–12℃；央行宣布降准 0.25 个百分点；Node.js 新 LTS 发布"),
    ("11-20 16:45", "工作", "对账服务 v2.3 发布，PR #134 合入，很顺利"),
    ("11-20 22:40", "-", "和阿雯看了《宇宙探索编辑部》，她看到一半睡着了"),
    ("11-21 10:30", "家庭", "带朵朵去上海自然博物馆，她在恐龙骨架前站了半小时"),
    ("11-21 22:10", "约定", "和阿杰约定：12 月 13 日（周日）下午在琴房合《晴天》，我负责人声和和声编排"),
    ("11-22 11:20", "side-project", "tidemark: plan for v0.3 is a recency boost, a --since flag, and a README with real benchmarks."),
    ("11-22 20:05", "饮食", "晚饭吃了饺子，白菜猪肉馅，包了 60 个冻了一半"),
    # 23:40 local on Sunday 11-22 (15:40Z): outside "the last 7 days" (11-23 … 11-29).
    ("11-22 23:40", "开销", "交了手机话费 58 元"),
    # ---- 2026-11-23 … 2026-11-29: this week, and "the last 7 days" ----
    # 00:15 / 00:20 local on Monday 11-23 are 2026-11-22T16:15Z / 16:20Z: local date 11-23.
    ("11-23 00:15", "约定", "和自己约定：加班不超过 23 点，今天是最后一次"),
    ("11-23 00:20", "开销", "加班到半夜，打车回家 64 元"),
    ("11-23 09:05", "早报", "早报：上海今天晴 5–13℃；国内油价今晚下调；Linux 内核新版本发布"),
    ("11-23 10:10", "工作", "周一站会：灰度前还差回滚演练和告警阈值两项"),
    ("11-23 20:15", "开销", "给朵朵买冬季羽绒服 459 元（淘宝）"),
    ("11-24 09:00", "早报", "早报：上海今天晴 6–14℃；A股三大指数收涨；GitHub Copilot 上线多模型切换"),
    ("11-24 12:50", "开销", "GPT-4o 和 Claude 的个人 API 账单 38.2 美元，约 276 元"),
    ("11-24 15:30", "工作", "灰度评审通过，老周要求加一个一键回滚开关"),
    ("11-24 21:00", "约定", "和阿雯约定：每月 5 号前把家庭账单汇总发给她"),
    ("11-25 09:10", "早报", "早报：上海今天多云 7–12℃；教育部发布寒假安排；微信上线聊天记录迁移新功能"),
    ("11-25 18:30", "家庭", "周三游泳课，朵朵自己游了 5 米"),
    ("11-25 21:05", "开销", "交燃气费 186 元"),
    ("11-25 21:40", "计划", "寒假（1 月底）想带全家去哈尔滨看冰雕，先盯一下机票价格"),
    ("11-26 08:55", "早报", "早报：寒潮预警，周末最低 2℃；港股小幅下跌；NVIDIA 发布新一代数据中心 GPU"),
    ("11-26 14:00", "工作", "PR #136：回滚开关做成配置中心的一个 flag，切换生效不到 3 秒"),
    ("11-26 22:30", "翻唱", "开始编《晴天》的和声，三度和声放在副歌第二遍"),
    ("11-27 09:02", "早报", "早报：上海今天阴转小雨 4–9℃；人民币小幅走强；欧盟 AI 法案新一批条款生效"),
    ("11-27 11:30", "工作", "本周迭代收尾，灰度前检查清单 23 项全部打勾"),
    ("11-27 19:45", "饮食", "晚饭吃了火锅，和阿雯、朵朵在楼下那家重庆火锅，点了毛肚、鸭血和虾滑，朵朵第一次吃微辣"),
    ("11-27 21:30", "开销", "火锅 368 元，微信支付"),
    (
        "11-28 10:40",
        "side-project",
        "tidemark v0.3.0-rc1 tagged; clippy is clean and 142 tests pass. Release on Dec 6 if no bugs come in.",
    ),
    ("11-28 16:20", "开销", "给朵朵买了一把尤克里里当生日礼物，799 元"),
    ("11-28 21:10", "家庭", "朵朵 12 月 2 日（周三）生日，阿雯订了蛋糕，那天晚上我准时回家"),
    ("11-29 10:10", "开销", "超市采购 213 元：水果、牛奶、排骨"),
    ("11-29 11:30", "翻唱", "《晴天》人声第一轨录完，12 月 13 日合练前再录两遍"),
]

# Anchored entries that also sit in hot.md's candidates (written with important: true).
CANDIDATE_TEXTS = [
    "和阿杰约定：12 月 13 日（周日）下午在琴房合《晴天》，我负责人声和和声编排",
    "寒假（1 月底）想带全家去哈尔滨看冰雕，先盯一下机票价格",
]

HOT_BODY = """# 关于林舟
林舟，35 岁，住上海徐汇，支付公司后端工程师（结算组，组长老周，同事小何，产品 Vivian）。妻子阿雯是小学语文老师，女儿朵朵 5 岁，12 月 2 日生日。爸妈在杭州，爸腰椎间盘轻度突出，12 月 10 日复查。爱好：翻唱、跑步、写 Rust。

# 长期约定
- 每周三晚上不加班，接朵朵上游泳课。
- 每月 5 号前把家庭账单汇总发给阿雯。
- 周日晚上不看工作消息；加班不超过 23 点。
- 代码评审 24 小时内给反馈；需求变更一律走工单。

# 正在推进
- 结算迁移：12 月 1 日开始灰度，每天放量 10%，已有一键回滚开关。
- 翻唱：《晴天》人声录制中，B站 最高的是《后来》。
- tidemark（Rust 业余项目）：v0.3.0-rc1 已打 tag，计划 12 月 6 日发布。
- 健康：血脂、尿酸偏高，每周跑步三次，12 月初复查。"""

HOT_TOPICS = ["翻唱|2026-11", "旅行|2026-10", "读书|2026-10", "工作|2026-11"]

# ---------------------------------------------------------------------------------------------
# Filler pools. Hand-written; templates fill the slots. None of them may contain RESERVED_TERMS.
# ---------------------------------------------------------------------------------------------
NEWS = [  # (text, months it fits or None)
    ("A股三大指数集体收涨，成交额破万亿", None),
    ("人民币兑美元中间价小幅走强", None),
    ("港股科技股普涨", None),
    ("国内油价今晚 24 时下调", None),
    ("央行开展 MLF 操作，利率持平", None),
    ("CPI 同比上涨 0.2%", None),
    ("上海公积金贷款利率下调 0.1 个百分点", None),
    ("比特币再次跌破 9 万美元", None),
    ("OpenAI 发布新模型，长上下文价格下调", None),
    ("DeepSeek 开源新版推理模型", None),
    ("国产大模型价格战继续，百万 tokens 降到 1 元", None),
    ("PostgreSQL 新版本发布，逻辑复制支持 DDL", None),
    ("SQLite 发布补丁版本，修复 FTS5 一个边界问题", None),
    ("Kubernetes 新版本发布，sidecar 容器转正", None),
    ("Python 新 beta 版发布，JIT 继续改进", None),
    ("GitHub 宕机 40 分钟，Actions 排队严重", None),
    ("某云厂商华东区故障 3 小时，多家 App 受影响", None),
    ("Chrome 更新修复一个高危漏洞", None),
    ("macOS 推送小版本更新，修复 Wi-Fi 断连", None),
    ("特斯拉上海工厂季度交付量创新高", None),
    ("小米汽车发布新款 SUV", None),
    ("国内首条 L3 自动驾驶测试线路开放", None),
    ("NVIDIA 财报超预期，盘后大涨", None),
    ("微信测试聊天记录云备份", None),
    ("上海地铁早高峰加开列车", None),
    ("上海发布高温橙色预警", {8}),
    ("台风逼近浙江沿海，周末有大风", {8, 9}),
    ("暑期档电影票房破百亿", {8}),
    ("开学季，地铁早高峰客流回升", {9}),
    ("苹果秋季发布会官宣", {9}),
    ("中秋国庆假期高铁票开售", {9}),
    ("国庆假期全国出游人次创新高", {10}),
    ("诺贝尔文学奖揭晓", {10}),
    ("NBA 新赛季揭幕", {10}),
    ("双十一预售开启，满减规则又变复杂了", {10, 11}),
    ("双十一当天快递量创纪录", {11}),
    ("上海迎来入秋后第一次降温", {10, 11}),
]
WEATHER = ["晴", "多云", "阴", "小雨", "阵雨", "雷阵雨", "多云转晴", "阴转小雨"]
TEMPS = {8: (27, 36), 9: (22, 31), 10: (15, 25), 11: (7, 17)}

PROJECTS = ["结算迁移", "对账服务", "清分引擎", "风控规则平台", "客服机器人"]
PROGRESS = [
    "双写开关在预发环境打开，观察两天",
    "存储过程梳理完了 12 个，剩下的最难",
    "迁移脚本加了断点续传，中断后可以接着跑",
    "补齐了 30 条对账用例",
    "慢查询从 2.3 秒优化到 180 毫秒，原因是缺了一个联合索引",
    "和 DBA 对了一遍备份策略，每天凌晨三点全量",
    "压测报告出来了，瓶颈在连接池",
    "把连接池从 20 调到 50，吞吐涨了 40%",
    "发现一个幂等问题，重复回调会记两笔",
    "给关键接口加了 trace id，排查快多了",
    "上线窗口定在周四晚上九点",
    "灰度名单整理好了，先放内部商户",
    "告警规则收敛了一半，夜里不再被误报吵醒",
    "写完了迁移方案的第二版文档",
    "代码覆盖率从 61% 提到 74%",
    "和下游确认了字段变更，他们下周排期",
    "日志量太大，把 debug 级别关掉省了 30% 存储",
    "排查了一个时区相关的边界 bug，跨零点的账单会算错一天",
    "和运维确认了扩容方案，加两台 16 核机器",
    "金额字段统一改成以分为单位的整数",
    "定时任务从 crontab 迁到了调度平台",
    "写了一个对账差异的可视化小页面，老周说好用",
    "接口文档改成从代码生成，不再手写",
    "回归测试全绿，可以提测了",
    "配置项清理了一轮，删掉 40 多个没人用的开关",
    "把一个三千行的类拆成了四个模块",
    "加了一组对账差异的单元测试，跑一遍 40 秒",
    "预发环境的数据和线上对不上，查出来是同步任务漏了一张表",
    "双写延迟从 2 秒降到 300 毫秒",
    "梳理了所有下游调用方，一共 11 个系统",
    "批处理改成分片执行，夜间任务提前一小时跑完",
    "和测试一起过了一遍回归用例，砍掉了 20 条重复的",
    "灰度开关接入了配置中心",
    "压测时发现内存泄漏，是一个缓存没设过期时间",
    "接口超时从 5 秒降到 2 秒，失败的走重试队列",
    "历史数据抽样校验 10 万条，全部一致",
    "给每个服务加了健康检查接口",
    "索引重建完了，表空间省了 18G",
    "重写了一个存储过程，逻辑终于看懂了",
    "监控大盘加了对账差异率的曲线",
    "和安全组确认了数据脱敏方案",
    "定位到一个偶发超时，是 DNS 解析慢",
    "补了迁移回滚脚本，演练了一次",
    "数据字典整理完了，共 236 张表",
]
PR_DESCS = [
    "修复分页查询漏数据",
    "对账任务支持按商户并行",
    "升级 JDBC 驱动",
    "去掉过期的 feature flag",
    "补充迁移脚本的单元测试",
    "重试逻辑加上指数退避",
    "修复金额四舍五入误差",
    "账单导出支持 CSV",
    "统一错误码",
    "日志脱敏，手机号只留后四位",
    "修复并发下的死锁",
    "给批处理加进度上报",
    "对账结果表加了分区",
    "双写校验支持抽样比例配置",
    "迁移脚本支持断点续传",
    "去掉 Oracle 专有的 NVL 写法",
    "存储过程改写成 Java 服务：日终汇总",
    "修复跨零点账单归错日期",
    "告警接入企业微信",
    "补齐 OpenAPI 文档",
    "连接池参数改成可配置",
    "慢查询日志阈值调到 500ms",
    "删除三个废弃接口",
    "商户维度的对账报表",
]
PR_FORMS = ["PR #{n} 提交了：{d}", "PR #{n} 合入：{d}", "review 了小何的 PR #{n}：{d}", "PR #{n} 被打回了，要补测试：{d}",
            "PR #{n} 改完 review 意见后合入：{d}"]
# Work PR numbers the anchored entries use, with their local dates: filler numbers stay between them.
ANCHORED_PRS = [(date(2026, 9, 3), 118), (date(2026, 11, 13), 131), (date(2026, 11, 20), 134), (date(2026, 11, 26), 136)]
MEETINGS = [
    "周会：下周重点是双写校验",
    "周会：老周强调上线前必须有回滚预案",
    "和老周 1:1，聊了明年想带两个新人",
    "和老周 1:1，他说我的文档写得清楚，但估时总是偏乐观",
    "面试了一个后端候选人，基础不错，系统设计偏弱",
    "面试了一个实习生，Go 写得很溜，给了通过",
    "部门季度复盘，结算组评了 A",
    "跨组评审：风控那边想复用我们的对账结果表",
    "技术分享：我讲了 PostgreSQL 的分区表，来了 30 多个人",
    "需求评审：Vivian 新提的商户分账需求排到下个季度",
    "和小何一起过了一遍上线清单",
    "线上事故复盘：凌晨的任务重复执行，原因是调度平台切主",
]
WORK_LINES = [
    "今天会太多，下午才开始写代码",
    "值班，半夜被告警叫醒一次，是磁盘水位误报",
    "公司 VPN 抽风了一上午",
    "新电脑到了，配环境花了半天",
    "给新同事讲了对账系统的整体架构",
    "绩效自评写完了",
    "季度 OKR 对齐：结算迁移占我 60% 的权重",
    "帮风控组看了一个 SQL，子查询改成 join 快了十倍",
    "团建报名了飞盘",
    "写了一篇内部博客，介绍迁移中的双写校验",
    "午饭时和小何聊了 PostgreSQL 的 VACUUM 调参",
    "测试环境数据库被人清空了，重新灌数据花了一下午",
    "给项目画了一张新的架构图，贴到 wiki 上",
    "下午专注写代码，没开会，很爽",
    "准备下周的技术分享 PPT",
    "和 DBA 一起做了一次故障演练，主库切换 40 秒",
    "整理了迁移项目的风险清单，一共 14 项",
    "周报写完了，这周主要是双写校验",
]

LUNCH = ["沙县的拌面和扁食", "公司食堂的红烧鸡腿", "楼下的兰州拉面", "黄焖鸡米饭", "麻辣烫", "日料定食，和小何一起",
         "轻食沙拉，为了控制体重", "生煎和牛肉汤", "外卖的酸菜鱼", "云南米线", "韩式拌饭", "肯德基，偶尔放纵"]
DINNER = ["阿雯做的清蒸鲈鱼", "番茄炒蛋和青菜", "红烧排骨", "小区门口的烧烤", "家里包的馄饨", "咖喱鸡饭",
          "糖醋里脊，朵朵点名要的", "外婆家的杭帮菜", "鸡汤面", "蒸饺和小米粥", "披萨，朵朵的最爱",
          "腌笃鲜", "虾仁滑蛋", "炒年糕"]
SPEND = [  # (item, low, high in 元, how often: "once" in the archive, "monthly", or "any" day)
    ("超市采购", 120, 380, "any"), ("加油", 300, 420, "any"), ("给朵朵买绘本", 60, 160, "any"),
    ("物业费", 680, 680, "monthly"), ("电费", 150, 420, "monthly"), ("水费", 40, 90, "monthly"),
    ("打车", 25, 80, "any"), ("午饭外卖", 25, 45, "any"), ("咖啡", 18, 38, "any"),
    ("朵朵的游泳课续费", 1800, 1800, "once"), ("买了一双跑鞋", 499, 899, "once"),
    ("给阿雯买护手霜", 120, 260, "once"), ("给爸妈寄水果", 180, 320, "monthly"), ("停车费", 20, 60, "any"),
    ("理发", 60, 98, "monthly"), ("网盘会员年费", 148, 148, "once"), ("视频会员", 25, 25, "monthly"),
    ("药店买感冒药", 45, 90, "once"), ("朵朵的舞蹈课教材", 80, 150, "once"), ("买了一袋猫粮喂小区的流浪猫", 39, 69, "any"),
    ("网购了一个显示器支架", 189, 259, "once"), ("洗车", 40, 60, "any"), ("给朵朵买水彩笔", 29, 59, "once"),
]
FAMILY_LINES = [
    "朵朵问天上为什么有月亮，讲了半天她说还是不懂",
    "阿雯今天学校开家长会，回来很累，晚上我洗碗",
    "给爸妈打了视频电话，妈说最近在学广场舞",
    "朵朵把积木搭成了一座桥，说是爸爸公司",
    "阿雯说想换一个大一点的冰箱，周末去看看",
    "朵朵幼儿园要交一张全家福，翻了半天相册",
    "陪朵朵画画，她画的爸爸有六根手指",
    "朵朵说长大想当宇航员，上周还想当厨师",
    "阿雯感冒了，晚上我带朵朵睡",
    "和阿雯散步聊了朵朵上小学的事，还是想离家近一点",
    "朵朵掉了第一颗牙，放在枕头下面等牙仙",
    "爸发来他在西湖边拍的照片，说腰好多了",
    "朵朵今天自己穿好了衣服，表扬了她",
    "周末大扫除，朵朵负责擦桌子",
    "朵朵幼儿园开放日，看她上了一节音乐课",
    "阿雯的学校评上了区优秀教研组",
    "给朵朵讲了三个睡前故事才睡着",
    "朵朵和楼下的小朋友吵架了，教她怎么道歉",
    "妈寄来一箱自家树上的橘子",
    "朵朵说想养一只猫，阿雯不同意",
    "带朵朵去公园骑自行车，还要辅助轮",
    "阿雯生日，订了她喜欢的那家西餐厅",
    "朵朵第一次自己刷牙刷了满两分钟",
    "陪朵朵练了半小时钢琴入门，她坐不住",
    "朵朵把幼儿园发的小红花贴满了冰箱",
    "阿雯批作业到十一点，给她泡了一杯蜂蜜水",
    "朵朵问为什么大人要上班，我说为了给她买绘本",
    "妈在电话里又催我们过年早点回杭州",
    "朵朵学会了用筷子夹花生米",
    "晚上和阿雯一起看了两集老友记",
    "朵朵的幼儿园要做树叶贴画，去小区捡了一袋落叶",
    "朵朵今天在幼儿园被老师表扬午睡睡得好",
    "爸在家族群里发了一段太极拳视频",
    "给朵朵剪了指甲，她全程在数数",
    "阿雯在研究明年朵朵上哪个小学，列了一张表",
    "朵朵说今天最开心的事是吃到了草莓",
    "一家三口去超市，朵朵自己推小推车",
    "朵朵把我的耳机藏起来了，找了半小时",
    "阿雯做了一桌菜，庆祝她们班拿了合唱比赛第一",
    "陪朵朵玩了一晚上的过家家，我演病人",
    "朵朵第一次自己讲了一个完整的故事，关于一只迷路的兔子",
    "带朵朵去打了流感疫苗，她没哭",
    "朵朵的班级要做亲子手工，我们做了一个纸箱小汽车",
    "周末带朵朵去了图书馆，借了五本绘本",
    "阿雯说我最近手机看得太多，晚上九点后手机放客厅",
    "朵朵认识了 100 个字，奖励她一盒彩笔",
    "岳母来上海住一周，帮忙带朵朵",
    "朵朵学会了骑滑板车下坡，吓得阿雯一直喊慢点",
]
HEALTH_LINES = [
    "颈椎又酸了，把显示器抬高了五厘米",
    "这周睡得不好，平均只有六个小时",
    "戒夜宵第十天",
    "牙龈出血，约了下周洗牙",
    "下午犯困，试试把咖啡挪到上午",
    "周末游泳 1000 米，腰舒服多了",
    "左脚踝有点扭到，跑步停两天",
    "开始用番茄钟，每 50 分钟站起来走走",
    "今天喝了 2 升水，第一次达标",
    "晚上十一点前睡了，早上精神好很多",
    "做了二十分钟拉伸，腰背轻松",
    "早上称体重发现涨了，昨晚的烧烤",
    "眼睛干，滴了人工泪液，屏幕亮度调低",
    "午饭后散步十五分钟，下午没那么困",
    "有点落枕，贴了膏药",
    "这周一杯奶茶都没喝",
]
PLAN_LINES = [
    "下个月想把驾照换证办了",
    "年底前把家里的路由器换成 Wi-Fi 7",
    "周末想带朵朵去滴水湖",
    "考虑报一个声乐课，每周一次",
    "把家里的旧书整理一批捐掉",
    "给爸妈换一台大屏手机",
    "下周开始每天早上背 10 个日语单词",
    "年假想连着元旦休，去一趟厦门",
    "把家庭账本从 Excel 换到一个记账 App",
    "周六去宜家看书架",
    "月底前把车险续上",
    "把朵朵的照片整理成一本相册，年底送爸妈",
    "下个月给阿雯报一个瑜伽课",
    "十二月之前学会用 Logic 做自动化混音",
    "想把阳台改成一个小录音角",
    "周末把家里的灯泡都换成暖光",
]
READ_BOOKS = [  # (first day, book) — the book in hand from that day on
    (date(2026, 8, 1), "《置身事内》"),
    (date(2026, 9, 22), "DDIA"),
    (date(2026, 10, 21), "《长安的荔枝》"),
    (date(2026, 10, 26), "DDIA"),
    (date(2026, 11, 1), "《被讨厌的勇气》"),
]
READ_LINES = [  # (template, local hours it fits, on workdays?, on days off?)
    ("睡前读了 {p} 页{b}", (21.5, 24.0), True, True),
    ("{b}读到第 {c} 章了", (20.0, 24.0), True, True),
    ("通勤路上读了 {p} 页{b}", (8.0, 9.5), True, False),
    ("午休读了 {p} 页{b}，有几段要回头再看", (12.5, 13.5), True, False),
    ("在咖啡馆读了 {p} 页{b}", (14.0, 17.0), False, True),
    ("下午在阳台读了 {p} 页{b}", (14.0, 17.5), False, True),
]
# Pool lines holding these words only fit some days: workdays, days off, or some months.
WORKDAY_WORDS = ["午休", "工牌", "公司", "下班", "地铁", "幼儿园", "上班", "学校"]
DAY_OFF_WORDS = ["周末", "睡到十点", "一家三口", "大扫除", "公园", "图书馆", "宜家"]
SEASON_WORDS = {"桂花": {9, 10}, "银杏": {11}, "冬天的衣服": {11}, "关东煮": {10, 11}, "流感疫苗": {10, 11},
                "落叶": {10, 11}, "橘子": {10, 11}}


# Lines holding these words are written only within these local hours.
TIME_WORDS = {"午休": (13, 24), "下午": (14, 24), "晚上": (19, 24), "一晚上": (20, 24), "晚霞": (17.5, 24),
              "早点睡": (20, 24), "早上": (6, 12), "一上午": (11.5, 24), "一整天": (17, 24), "下班": (18, 24),
              "睡到十点": (10, 24), "睡前": (20, 24), "十一点前睡": (6, 12), "午饭后": (13, 24)}


def suits(text: str, day: date, hour: float) -> bool:
    """Whether a hand-written pool line reads right on `day` at local `hour`."""
    for w, (a, b) in TIME_WORDS.items():
        if w in text and not a <= hour < b:
            return False
    if any(w in text for w in WORKDAY_WORDS) and not is_workday(day):
        return False
    if any(w in text for w in DAY_OFF_WORDS) and is_workday(day):
        return False
    return all(day.month in months for w, months in SEASON_WORDS.items() if w in text)
# Tags written at most once a day.
ONCE_A_DAY = {"读书", "健康", "计划", "早报"}
MISC_LINES = [
    "今天效率很高，番茄钟完成了 8 个",
    "楼下新开了一家面包店，可颂不错",
    "雨下了一整天，地铁里全是伞",
    "手机屏幕摔裂了，先贴个膜凑合",
    "换了新的机械键盘，茶轴",
    "看了一部纪录片《河西走廊》，拍得真好",
    "把 Mac 上没用的软件清理了一遍，腾出 40G",
    "整理了一下书桌，找到了去年丢的耳机",
    "今天有点焦虑，说不清为什么",
    "听了一期播客，讲城市更新，挺有意思",
    "地铁上遇到大学同学，他现在在做跨境电商",
    "小区的桂花开了，整条路都是香的",
    "晚上散步一万步",
    "把 B站 的收藏夹整理了一下",
    "下班路上看到很好看的晚霞",
    "给电动车换了电池",
    "试了一下新的降噪耳机，地铁上终于安静了",
    "学了一首新的吉他和弦进行",
    "家里网络断了一晚上，光猫坏了",
    "周末睡到十点，难得",
    "楼上在装修，电钻响了一整天",
    "密码管理器里的旧密码批量换了一遍",
    "排队等了半小时喝到了新开的咖啡店",
    "把冬天的衣服从柜子里翻出来了",
    "今天什么都不想干，早点睡",
    "公司楼下的银杏黄了",
    "又把雨伞忘在地铁上了",
    "听说老同事跳槽去了大厂，工资涨了一半",
    "下午的阳光很好，在阳台坐了一会儿",
    "给旧电脑装了 Linux，当家里的小服务器",
    "楼下便利店开始卖关东煮了",
    "路上看到一只橘猫，跟了我一段路",
    "发现自己好久没有给老朋友打电话了",
    "今天有点累，但事情都按计划做完了",
    "打了一局羽毛球，手臂酸",
    "手机相册满了，花了一小时清理",
    "外卖小哥送错了，多了一杯奶茶",
    "下雨，地铁晚点十分钟",
    "换了一个新的桌面壁纸，心情好一点",
    "和大学室友视频，约了明年春天聚一次",
    "家里的绿萝又长出了新叶子",
    "取了一个快递，是上个月买的书架配件",
    "今天午休睡过头了",
    "电梯维修，爬了 14 层楼",
    "把家里的 Wi-Fi 密码改了",
    "看了一场线上讲座，讲大模型在客服里的落地",
    "晚上做了一个很长的梦，醒来忘了",
    "这周第三次忘带工牌",
    "重看了一遍《海上钢琴师》",
    "给电脑换了一块 2T 的硬盘",
]

# Tag weights for filler slots.
WEEKDAY_TAGS = {"工作": 36, "饮食": 15, "开销": 9, "家庭": 11, "-": 16, "健康": 5, "计划": 3, "读书": 4}
WEEKEND_TAGS = {"家庭": 30, "饮食": 18, "开销": 14, "-": 22, "健康": 6, "计划": 5, "读书": 6}
HOUR_RANGES = {  # local hours (start, end) a filler of that tag is written in
    "工作": (9.5, 19.0),
    "饮食": None,  # lunch or dinner, decided with the text
    "开销": (10.0, 22.5),
    "家庭": (18.0, 22.5),
    "-": (8.0, 24.0),
    "健康": (7.0, 23.0),
    "计划": (20.0, 23.5),
    "读书": (8.0, 24.0),
}


class Pools:
    """Hand-written lines handed out without replacement; templates as fallback."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines = {}
        for key, pool in [("family", FAMILY_LINES), ("health", HEALTH_LINES), ("plan", PLAN_LINES),
                          ("misc", MISC_LINES), ("work", WORK_LINES + MEETINGS), ("pr", PR_DESCS), ("progress", PROGRESS)]:
            items = list(pool)
            rng.shuffle(items)
            self.lines[key] = items
        self.pr = 100
        self.spent: set[str] = set()
        self.meals: set[tuple[date, bool]] = set()
        self.chapter: dict[str, int] = {}
        self.news_cursor = 0
        self.news = list(NEWS)
        rng.shuffle(self.news)

    def take(self, key: str, day: date, hour: float) -> str | None:
        """The next unused line of pool `key` that suits `day` at `hour`, or None."""
        items = self.lines[key]
        for i in range(len(items) - 1, -1, -1):
            if suits(items[i], day, hour):
                return items.pop(i)
        return None

    def next_pr(self, day: date) -> int | None:
        """The next work PR number on `day`, between the anchored PRs around it; None if no room.
        Never 123 (that number belongs to tidemark's PR in the side-project thread)."""
        lower = max([n for d, n in ANCHORED_PRS if d <= day], default=100)
        upper = min([n for d, n in ANCHORED_PRS if d > day], default=999)
        n = max(self.pr, lower) + 1
        if n == 123:
            n += 1
        if n >= upper:
            return None
        self.pr = n
        return n

    def news_items(self, day: date, k: int) -> list[str]:
        out: list[str] = []
        tries = 0
        while len(out) < k and tries < 4 * len(self.news):
            text, months = self.news[self.news_cursor % len(self.news)]
            self.news_cursor += 1
            tries += 1
            if (months is None or day.month in months) and text not in out:
                out.append(text)
        return out


def book_for(day: date) -> str:
    book = READ_BOOKS[0][1]
    for first, b in READ_BOOKS:
        if day >= first:
            book = b
    return book


def filler_text(tag: str, day: date, hour: float, pools: Pools, rng: random.Random) -> str | None:
    """One filler text for `tag` on local `day` at local `hour`; None when nothing fits."""
    if tag == "工作":
        r = rng.random()
        if r < 0.45:
            progress = pools.take("progress", day, hour)
            if progress is not None:
                return f"{rng.choice(PROJECTS)}：{progress}"
        if r < 0.65:
            n = pools.next_pr(day)
            if n is not None:
                desc = pools.take("pr", day, hour)
                if desc is not None:
                    return rng.choice(PR_FORMS).format(n=n, d=desc)
        return pools.take("work", day, hour)
    if tag == "饮食":
        meal = (day, hour < 15)
        if meal in pools.meals:
            return None  # one lunch and one dinner a day
        pools.meals.add(meal)
        if hour < 15:
            return f"午饭{rng.choice(['吃了', '', '点了'])}{rng.choice(LUNCH)}"
        return f"晚饭{rng.choice(['吃了', '', '是'])}{rng.choice(DINNER)}"
    if tag == "开销":
        item, lo, hi, often = rng.choice(SPEND)
        key = {"once": item, "monthly": f"{item}@{day:%Y-%m}", "any": f"{item}@{day}"}[often]
        if key in pools.spent:
            return None
        pools.spent.add(key)
        amount = lo if lo == hi else rng.randint(lo, hi)
        return f"{item} {amount} 元"
    if tag == "家庭":
        return pools.take("family", day, hour)
    if tag == "健康":
        r = rng.random()
        if r < 0.45 and (6.5 <= hour < 7.5 or 19.5 <= hour < 22.5):
            km = rng.choice([3, 4, 5, 5, 6, 8, 10])
            return f"跑步 {km} 公里，配速 {rng.randint(5, 6)} 分 {rng.randint(0, 59):02d} 秒"
        if r < 0.7 and 7.0 <= hour < 8.5:
            return f"体重 {rng.uniform(74.0, 76.8):.1f}kg"
        return pools.take("health", day, hour)
    if tag == "计划":
        return pools.take("plan", day, hour)
    if tag == "读书":
        work = is_workday(day)
        fits = [t for t, (a, b), on_work, on_off in READ_LINES if a <= hour < b and (on_work if work else on_off)]
        if not fits:
            return None
        book = book_for(day)
        line = rng.choice(fits)
        if "{c}" in line:
            pools.chapter[book] = pools.chapter.get(book, 1) + 1
        return line.format(p=rng.randint(12, 60), b=book, c=pools.chapter.get(book, 1))
    if tag == "-":
        return pools.take("misc", day, hour)
    raise ValueError(tag)


def zaobao(day: date, pools: Pools, rng: random.Random) -> str:
    lo, hi = TEMPS[day.month]
    low = rng.randint(lo, hi - 6)
    weather = f"上海今天{rng.choice(WEATHER)} {low}–{low + rng.randint(4, 8)}℃"
    return "早报：" + "；".join([weather] + pools.news_items(day, rng.choice([2, 2, 3])))


# ---------------------------------------------------------------------------------------------
# Building the archive
# ---------------------------------------------------------------------------------------------
class Entry:
    __slots__ = ("local", "tag", "text", "source")

    def __init__(self, local: datetime, tag: str, text: str):
        self.local = local  # aware datetime in TZ, millisecond precision
        self.tag = tag
        self.text = text
        self.source: str | None = None

    @property
    def utc(self) -> datetime:
        return self.local.astimezone(timezone.utc)

    def line(self) -> str:
        ts = self.utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.utc.microsecond // 1000:03d}Z"
        s = f"- [{ts}] [{self.tag}] {self.text}"
        return s + (f" {self.source}" if self.source else "")


def local_dt(day: date, hour: float, rng: random.Random) -> datetime:
    """A local instant on `day` at fractional `hour` (< 24), random seconds and milliseconds."""
    minute_of_day = min(int(hour * 60), 24 * 60 - 1)
    return datetime(day.year, day.month, day.day, minute_of_day // 60, minute_of_day % 60,
                    rng.randint(0, 59), rng.randint(0, 999) * 1000, tzinfo=TZ)


def parse_anchor(spec: str, rng: random.Random) -> datetime:
    m = re.fullmatch(r"(\d\d)-(\d\d) (\d\d):(\d\d)(?::(\d\d)\.(\d{3}))?", spec)
    if not m:
        raise ValueError(f"bad anchor time {spec!r}")
    mo, d, h, mi = (int(x) for x in m.groups()[:4])
    if m.group(5) is not None:
        s, ms = int(m.group(5)), int(m.group(6))
    else:
        s, ms = rng.randint(0, 59), rng.randint(0, 999)
    return datetime(2026, mo, d, h, mi, s, ms * 1000, tzinfo=TZ)


def days() -> list[date]:
    n = (TODAY - FIRST_DAY).days + 1
    return [FIRST_DAY + timedelta(days=i) for i in range(n)]


def is_workday(day: date) -> bool:
    return day.weekday() < 5 and day not in HOLIDAYS


def build(rng: random.Random) -> list[Entry]:
    entries: list[Entry] = []
    for spec, tag, text in ANCHORED:
        entries.append(Entry(parse_anchor(spec, rng), tag, text))
    anchored_per_day = Counter(e.local.date() for e in entries)
    seen = {(e.tag, e.text) for e in entries}
    pools = Pools(rng)

    filler_days = [d for d in days() if d < HANDWRITTEN_FROM and d not in ANCHORED_ONLY]
    workdays = [d for d in filler_days if is_workday(d)]
    bursts = set(rng.sample(workdays, 5))
    for day in filler_days:
        work = is_workday(day)
        if anchored_per_day[day] == 0 and rng.random() < (0.05 if work else 0.30):
            continue  # an empty day: no file at all
        target = rng.choice([3, 4, 4, 5, 5, 6]) if work else rng.choice([0, 1, 1, 2, 2, 3])
        if day in bursts:
            target += rng.randint(4, 6)
        slots = max(0, target - anchored_per_day[day])
        if work and rng.random() < 0.6:
            text = zaobao(day, pools, rng)
            if (("早报", text)) not in seen:
                seen.add(("早报", text))
                entries.append(Entry(local_dt(day, rng.uniform(8.0, 9.5), rng), "早报", text))
        weights = WEEKDAY_TAGS if work else WEEKEND_TAGS
        if day in bursts:
            weights = {"工作": 1}
        for _ in range(slots):
            for _attempt in range(10):
                tag = rng.choices(list(weights), weights=list(weights.values()))[0]
                rng_hours = HOUR_RANGES[tag]
                hour = rng.choice([12.0, 12.5, 18.5, 19.0, 19.5]) + rng.random() / 2 if rng_hours is None \
                    else rng.uniform(*rng_hours)
                if tag in ONCE_A_DAY and any(e.tag == tag and e.local.date() == day for e in entries):
                    continue
                text = filler_text(tag, day, hour, pools, rng)
                if text is not None and (tag, text) not in seen:
                    seen.add((tag, text))
                    entries.append(Entry(local_dt(day, hour, rng), tag, text))
                    break

    entries.sort(key=lambda e: e.local)
    # Sources on ~20% of entries, seq increasing per conversation as a chat log would be.
    convs = {"private:3920117845": 200, "group:61120488": 40}
    with_source = set(rng.sample(range(len(entries)), round(SOURCE_SHARE * len(entries))))
    for i, e in enumerate(entries):
        if i in with_source:
            conv = "private:3920117845" if rng.random() < 0.8 else "group:61120488"
            convs[conv] += rng.randint(3, 40)
            marker = f"〔src:{conv}#{convs[conv]}"
            if rng.random() < 0.4:
                marker += f"/msg-{rng.getrandbits(24):06x}"
            e.source = marker + "〕"
    return entries


def write_archive(out: Path, entries: list[Entry]) -> None:
    cold = out / "cold"
    if cold.exists():
        shutil.rmtree(cold)
    by_day: dict[date, list[Entry]] = {}
    for e in entries:
        by_day.setdefault(e.local.date(), []).append(e)
    for day, items in sorted(by_day.items()):
        path = cold / f"{day:%Y-%m}" / f"{day:%Y-%m-%d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# {day:%Y-%m-%d}\n" + "".join(e.line() + "\n" for e in items)
        path.write_bytes(text.encode("utf-8"))
    hot = [HOT_BODY, ""]
    hot.append("<!-- candidates:start -->")
    for t in CANDIDATE_TEXTS:
        matches = [e for e in entries if e.text == t]
        assert len(matches) == 1, t
        e = matches[0]
        hot.append(f"- [{e.line()[3:27]}] [{e.tag}] {e.text}")
    hot += ["<!-- candidates:end -->", "", "<!-- topics:start -->", *HOT_TOPICS, "<!-- topics:end -->", ""]
    (out / "hot.md").write_bytes("\n".join(hot).encode("utf-8"))
    # The zone the day files are dated in, as memlayers records it at a root's first open:
    # a copy opened without --tz on a machine in another zone keeps Shanghai's local dates.
    (out / "memlayers.json").write_bytes(b'{"timezone":"Asia/Shanghai"}\n')
    usage = out / "usage.json"
    if usage.exists():
        usage.unlink()


# ---------------------------------------------------------------------------------------------
# Reading back and checking the README's answers
# ---------------------------------------------------------------------------------------------
LINE_RE = re.compile(r"^- \[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\] \[([^\]]*)\] (.*?)(?: (〔src:[^〕]*〕))?$")


def read_back(out: Path) -> list[tuple[date, datetime, str, str, str | None]]:
    rows = []
    for path in sorted((out / "cold").glob("*/*.md")):
        day = date.fromisoformat(path.stem)
        assert path.parent.name == f"{day:%Y-%m}", path
        lines = path.read_text("utf-8").split("\n")
        assert lines[0] == f"# {day:%Y-%m-%d}" and lines[-1] == "", path
        for line in lines[1:-1]:
            m = LINE_RE.match(line)
            assert m, line
            ts = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
            assert ts.astimezone(TZ).date() == day, line  # file = local date of the entry
            rows.append((day, ts, m.group(2), m.group(3), m.group(4)))
    return rows


def check(rows, out: Path) -> dict:
    def between(a: date, b: date):
        return [r for r in rows if a <= r[0] <= b]

    texts = lambda rs: [r[3] for r in rs]  # noqa: E731

    # Filler never uses reserved terms: every entry holding one is anchored.
    anchored_texts = {t for _, _, t in ANCHORED}
    for r in rows:
        if r[3] not in anchored_texts:
            assert not any(term in r[3] for term in RESERVED_TERMS), r
            assert r[2] not in ("约定", "翻唱", "旅行", "重要", "side-project", "candidate-expired"), r
    assert len(set((r[0], r[2], r[3]) for r in rows)) == len(rows), "duplicate tag+text on one day"

    q = {}
    q["上周 约定"] = [r for r in between(date(2026, 11, 16), date(2026, 11, 22)) if r[2] == "约定"]
    assert texts(q["上周 约定"]) == [
        "和阿雯约定：每周三晚上我不加班，固定接朵朵去上游泳课",
        "和产品约定：结算迁移灰度从 12 月 1 日开始，每天放量 10%，有异常立刻回滚",
        "和阿杰约定：12 月 13 日（周日）下午在琴房合《晴天》，我负责人声和和声编排",
    ], q["上周 约定"]
    assert q["上周 约定"][0][1].date() == date(2026, 11, 15)  # UTC date differs from the local one
    assert all("约定" in r[3] for r in q["上周 约定"])
    week_mentions = [r for r in between(date(2026, 11, 16), date(2026, 11, 22)) if "约定" in r[3]]
    assert week_mentions == q["上周 约定"]

    eaten = [r for r in between(date(2026, 11, 27), date(2026, 11, 27)) if "吃" in r[3]]
    assert texts(eaten) == ["晚饭吃了火锅，和阿雯、朵朵在楼下那家重庆火锅，点了毛肚、鸭血和虾滑，朵朵第一次吃微辣"]
    q["前天晚上吃了什么"] = eaten

    notes = [r for r in between(date(2026, 10, 21), date(2026, 10, 31)) if "读书笔记" in r[3]]
    assert len(notes) == 3 and all(r[2] == "读书" for r in notes)
    assert len([r for r in rows if "读书笔记" in r[3]]) == 5
    q["10月下旬 读书笔记"] = notes

    spend = [r for r in between(date(2026, 11, 23), date(2026, 11, 29)) if r[2] == "开销"]
    amounts = [int(m.group(1)) for r in spend for m in [re.search(r"(\d+) 元", r[3])]]
    assert len(spend) == 7 and sum(amounts) == 2365, (len(spend), amounts)
    q["最近7天 开销"] = spend

    covers = [r for r in rows if r[2] == "翻唱"]
    assert Counter(r[0].month for r in covers) == {8: 3, 9: 3, 10: 3, 11: 4}
    q["翻唱 (tag)"] = covers
    recall = [r for r in rows if r[2] == "翻唱" or "翻唱" in r[3]]
    assert [(r[0], r[2]) for r in recall if r[2] != "翻唱"] == [
        (date(2026, 8, 1), "计划"), (date(2026, 8, 30), "side-project"), (date(2026, 11, 10), "健康")]
    q["翻唱 (tag or text)"] = recall

    tm = [r for r in rows if "tidemark" in r[3]]
    assert len(tm) == 13 and len([r for r in rows if r[2] == "side-project"]) == 11 and [r[0] for r in tm if r[0].month == 10] == [date(2026, 10, 11), date(2026, 10, 25)]
    q["tidemark"] = tm

    llm = [r for r in rows if "GPT-4o" in r[3] and "Token消耗" in r[3]]
    assert [r[0] for r in llm] == [date(2026, 9, 9), date(2026, 10, 14), date(2026, 11, 19)]
    q["GPT-4o Token消耗"] = llm
    llm_or = [r for r in rows if "GPT-4o" in r[3] or "Token消耗" in r[3]]
    assert [r[0] for r in llm_or] == [date(2026, 9, 9), date(2026, 10, 14), date(2026, 11, 19), date(2026, 11, 24)]
    q["GPT-4o Token消耗 (or)"] = llm_or

    trip = [r for r in between(date(2026, 10, 1), date(2026, 10, 31)) if r[2] == "旅行"]
    assert [r[0].day for r in trip] == [2, 3, 4, 5]
    q["上个月 旅行"] = trip
    qd = [r for r in between(date(2026, 10, 1), date(2026, 10, 31)) if "青岛" in r[3]]
    assert [(r[0].day, r[2]) for r in qd] == [(2, "旅行"), (3, "旅行"), (4, "旅行"), (5, "旅行"), (5, "开销")]
    assert len([r for r in rows if "青岛" in r[3]]) == 8  # 09-21, 09-24 and 11-01 fall outside October
    q["上个月 青岛"] = qd

    last_week = between(date(2026, 11, 16), date(2026, 11, 22))
    assert len(last_week) == 22
    q["上周 (window only)"] = last_week
    assert [r[3] for r in sorted((r for r in rows if r[2] == "开销"), key=lambda r: r[1])[-7:]] == texts(spend)

    # hot.md: body ~400 code points, 2 candidates, 4 topics.
    hot = (out / "hot.md").read_text("utf-8")
    body = hot.split("<!-- candidates:start -->")[0].rstrip("\n")
    assert 380 <= len(body) <= 430, len(body)
    cands = hot.split("<!-- candidates:start -->")[1].split("<!-- candidates:end -->")[0].strip().split("\n")
    topics = hot.split("<!-- topics:start -->")[1].split("<!-- topics:end -->")[0].strip().split("\n")
    assert len(cands) == 2 and len(topics) == 4
    assert not (out / "usage.json").exists()
    q["_hot_body_chars"] = len(body)
    return q


def facts(rows, out: Path, q: dict) -> str:
    all_days = days()
    file_days = sorted({r[0] for r in rows})
    empty = [d for d in all_days if d not in set(file_days)]
    per_day = Counter(r[0] for r in rows)
    weekend = [per_day[d] for d in all_days if d.weekday() >= 5]
    weekday = [per_day[d] for d in all_days if d.weekday() < 5]
    digest = hashlib.sha256()
    for p in sorted(out.rglob("*.md")):
        digest.update(str(p.relative_to(out)).encode() + b"\0" + p.read_bytes())
    lines = [
        f"entries: {len(rows)}",
        f"day files: {len(file_days)} of {len(all_days)} days ({FIRST_DAY} … {TODAY}); empty days: {len(empty)}",
        f"empty days: {', '.join(str(d) for d in empty)}",
        f"entries per weekday day: {sum(weekday) / len(weekday):.2f}; per weekend day: {sum(weekend) / len(weekend):.2f}; "
        f"max in a day: {max(per_day.values())} ({max(per_day, key=lambda d: (per_day[d], d))})",
        f"with source: {sum(1 for r in rows if r[4])} ({100 * sum(1 for r in rows if r[4]) / len(rows):.1f}%), "
        f"of which with msgId: {sum(1 for r in rows if r[4] and '/' in r[4])}",
        f"long entries (>= 300 chars): {sum(1 for r in rows if len(r[3]) >= 300)}",
        "per month: " + ", ".join(f"{m}: {c}" for m, c in sorted(Counter(f'{r[0]:%Y-%m}' for r in rows).items())),
        "tags: " + ", ".join(f"{t} {c}" for t, c in Counter(r[2] for r in rows).most_common()),
        f"hot.md body: {q['_hot_body_chars']} chars",
        f"sha256 of all .md files: {digest.hexdigest()}",
    ]
    for name, rs in q.items():
        if name.startswith("_"):
            continue
        lines.append(f"\n[{name}] {len(rs)}")
        for r in rs:
            lines.append(f"  {r[1].astimezone(TZ):%Y-%m-%d %H:%M} (UTC {r[1]:%Y-%m-%dT%H:%MZ}) [{r[2]}] {r[3][:60]}")
    return "\n".join(lines)


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=repo / "examples" / "archive", help="data root to write")
    args = ap.parse_args()
    rng = random.Random(SEED)
    entries = build(rng)
    args.out.mkdir(parents=True, exist_ok=True)
    write_archive(args.out, entries)
    rows = read_back(args.out)
    assert len(rows) == len(entries)
    q = check(rows, args.out)
    print(facts(rows, args.out, q))
    return 0


if __name__ == "__main__":
    sys.exit(main())
