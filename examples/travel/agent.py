"""A tiny offline travel agent, for `agenteval run examples/travel/ --agent examples/travel`.

It stands in for a real LLM agent: it recognises the example's requests, "calls" tools by
reporting them, and answers. (`travel.actual.json` was recorded from an older version that
sent the amount to the currency tool as a string; scoring that file shows the failure.)
A folder target runs the folder's `agent.py:respond`; `--agent examples/travel/agent.py:respond`
names the function explicitly.
"""

from __future__ import annotations


def respond(message: str, history: list) -> dict:
    """Answer one user turn; `history` holds the earlier turns of this conversation."""
    text = message.lower()
    if "weather" in text and "paris" in text:
        return {
            "tool_calls": [{"name": "get_weather", "args": {"city": "Paris", "day": "tomorrow"}}],
            "tool_responses": [{"name": "get_weather", "response": {"forecast": "sunny", "high_c": 24}}],
            "text": "It will be sunny in Paris tomorrow, with a high of 24 degrees Celsius.",
        }
    if "flight" in text:
        return {
            "tool_calls": [
                {
                    "name": "search_flights",
                    "args": {"origin": "BER", "destination": "HND", "date": "2027-03-12"},
                }
            ],
            "text": (
                "There is a direct flight from Berlin to Tokyo on 12 March at 09:40; it costs 780 euros."
            ),
        }
    if "yen" in text:
        return {
            "tool_calls": [{"name": "convert_currency", "args": {"amount": 780, "from": "EUR", "to": "JPY"}}],
            "tool_responses": [{"name": "convert_currency", "response": {"amount": 126204, "to": "JPY"}}],
            "text": "780 euros is about 126,000 Japanese yen at today's rate.",
        }
    if "ホテル" in message:
        return {
            "tool_calls": [
                {"name": "geocode", "args": {"place": "東京駅"}},
                {"name": "search_hotels", "args": {"near": "東京駅", "limit": 3}},
            ],
            "text": "東京駅の近くでホテルが三つ見つかりました。",
        }
    return "Sorry, I can only help with weather, flights, currencies and hotels."
