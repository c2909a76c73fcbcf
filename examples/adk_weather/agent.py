"""A small ADK weather agent: two function tools and a sub-agent.

``weather_assistant`` answers with ``get_weather`` (current conditions, in the unit the
session state's ``temperature_unit`` asks for) and ``get_forecast``, and transfers packing
questions to ``packing_advisor``.

By default both agents run on ``OfflineWeatherModel`` (``offline_model.py``), a rule-based
STAND-IN for an LLM, so that the example runs offline and without a key::

    agenteval run examples/adk_weather/ --agent examples/adk_weather

To run them on a real model instead, name it in ``ADK_EXAMPLE_MODEL`` and give ADK its
credentials as usual (``GOOGLE_API_KEY``, or Vertex AI's variables, e.g. in a ``.env`` file
in this folder)::

    ADK_EXAMPLE_MODEL=gemini-2.5-flash agenteval run examples/adk_weather/ --agent examples/adk_weather
"""

from __future__ import annotations

import os
from typing import Union

from google.adk.agents import Agent
from google.adk.models.base_llm import BaseLlm
from google.adk.tools import ToolContext

from .offline_model import OfflineWeatherModel

_WEATHER = {
    "Paris": (18, "partly cloudy"),
    "Tokyo": (21, "raining"),
    "Cairo": (35, "sunny"),
    "London": (12, "overcast"),
}
_FORECAST = {"Tokyo": "light rain every day", "Paris": "mild and sunny days", "London": "showers"}


def get_weather(city: str, tool_context: ToolContext) -> dict:
    """Returns the current weather in a city.

    Args:
        city: the city's name, e.g. "Paris".
    """
    celsius, conditions = _WEATHER.get(city, (20, "clear"))
    unit = tool_context.state.get("temperature_unit", "C")
    temperature = celsius if unit == "C" else round(celsius * 9 / 5 + 32)
    return {"city": city, "temperature": temperature, "unit": unit, "conditions": conditions}


def get_forecast(city: str, days: int) -> dict:
    """Returns the weather forecast for a city for the next few days.

    Args:
        city: the city's name, e.g. "Tokyo".
        days: how many days ahead, 1 to 7.
    """
    return {"city": city, "days": days, "summary": _FORECAST.get(city, "dry weather")}


def _model(role: str) -> Union[str, BaseLlm]:
    """The real model named by ``ADK_EXAMPLE_MODEL``, else the offline stand-in."""
    return os.environ.get("ADK_EXAMPLE_MODEL") or OfflineWeatherModel(role=role)


packing_advisor = Agent(
    name="packing_advisor",
    model=_model("packing"),
    description="Advises what to pack or wear, given the weather discussed so far.",
    instruction=(
        "Advise the user what to pack for their trip in one short sentence, based on the "
        "weather and forecast already discussed in the conversation."
    ),
)

root_agent = Agent(
    name="weather_assistant",
    model=_model("assistant"),
    description="Answers questions about the current weather and the forecast.",
    instruction=(
        "You answer weather questions in one short sentence. Use get_weather for the current "
        "weather and get_forecast for the next days, then state the temperature with its unit "
        "and the conditions. For questions about what to pack or wear, transfer to "
        "packing_advisor."
    ),
    tools=[get_weather, get_forecast],
    sub_agents=[packing_advisor],
)
