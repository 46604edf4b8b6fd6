"""An independent client of issue 26's timeline, diversity and Chinese search over stdio: the
official MCP Python SDK writes notes of two sessions, near-duplicate notes and Chinese notes,
then asks recent_activity to group them, search_notes to diversify, and searches in Chinese.

Usage: mcp_timeline_client.py GITMEM ROOT

It starts `GITMEM --root ROOT serve`, calls the steps below in order and prints on stdout a
JSON summary for the Rust test (tests/stdio_python.rs) to check.
"""

import asyncio
import json
import sys

from stdio_session import served, text_of

DUPLICATE = ("The kafka consumer rebalance stalls when a consumer leaves the group; "
             "we restarted the consumer and the rebalance finished.")

NOTES = [
    ("Standup", "Talked about the release.", {"note_type": "meeting", "metadata": {"session_id": "s-1"}}),
    ("Retro", "What went well.", {"note_type": "meeting", "metadata": {"session_id": "s-2"}}),
    ("Design", "The storage layout.", {"note_type": "spec", "metadata": {"session_id": "s-1"}}),
] + [
    (f"Kafka consumer rebalance {i}", DUPLICATE, {}) for i in range(1, 6)
] + [
    ("Kafka consumer rebalance with static membership",
     "Static group membership keeps partition assignments across restarts, so a kafka "
     "consumer rebalance is skipped during rolling deploys of the service.", {}),
    ("周会纪要", "本周的会议讨论了数据库迁移计划，大家同意下个月完成。", {}),
    ("讀書筆記", "我每天晚上學習數學，並且複習前一天的練習。", {}),
]

CALLS = [
    ("recent_activity", {"group_by": "session", "page_size": 20, "output_format": "json"}),
    ("recent_activity", {"group_by": "type", "page_size": 20}),
    ("search_notes", {"query": "kafka consumer rebalance", "page_size": 3, "output_format": "json"}),
    ("search_notes", {"query": "kafka consumer rebalance", "page_size": 3, "diversify": True,
                      "output_format": "json"}),
    ("search_notes", {"query": "数据库", "output_format": "json"}),
    ("search_notes", {"query": "学习", "output_format": "json"}),
]


async def main(gitmem, root):
    async with served(gitmem, root) as session:
        for title, content, extra in NOTES:
            result = await session.call_tool(
                "write_note", {"title": title, "content": content, "directory": "notes", **extra}
            )
            assert not result.is_error, result.content
        steps = []
        for name, arguments in CALLS:
            result = await session.call_tool(name, arguments)
            steps.append({
                "tool": name,
                "error": result.is_error,
                "structured": result.structured_content,
                "text": text_of(result),
            })
    print(json.dumps({"steps": steps}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
