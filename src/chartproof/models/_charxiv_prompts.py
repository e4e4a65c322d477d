"""CharXiv's grading prompts (princeton-nlp/CharXiv `src/constants.py`, Apache-2.0),
kept as the exact strings the benchmark sends to its judge, for `eval --judge` on CharXiv
samples (`pipelines.judge`). Text, not code: the templates are built in `models.prompts`.

Quirks kept: "interger", "an ground truth", the literal backslash-n at the end of the
prefixes, and the in-context example whose "\\alpha, \\beta" the original writes in a
non-raw string, so the judge receives a bell and a backspace character there.
"""

from __future__ import annotations

__all__ = [
    "DESCRIPTIVE_PREFIX",
    "DESCRIPTIVE_QUESTIONS",
    "DESCRIPTIVE_RUBRICS",
    "REASONING_PREFIX",
    "REASONING_RULES",
    "RUBRIC_OF_QID",
]

DESCRIPTIVE_PREFIX = "\nYou will be given <|NUM_TRIPLETS|> pairs of ground truth answers and model responses under an overarching question. You need to go through each of the pairs, extract the final answer from the model response, compare it with the ground truth answer, and then assign a binary score. Avoid providing explanations in your response. If there is no provided model response, please leave the extracted answer empty and give a score of 0. Your response must follow json formats with keys [<|JSON_KEYS|>] where the value for any `extract_answer` is your extracted answer and `score` is an interger in [0, 1] based on the following rules:\n\n\nOverarching Question: <|OVERARCHING_QUESTION|>\n"
"""Prefix of a descriptive grading query (<|NUM_TRIPLETS|>, <|JSON_KEYS|>, <|OVERARCHING_QUESTION|>)."""

DESCRIPTIVE_QUESTIONS: dict[int, str] = {
    1: "What is the title of the plot?",
    2: "What is the label of the x-axis?",
    3: "What is the label of the y-axis?",
    4: "What is the leftmost labeled tick on the x-axis?",
    5: "What is the rightmost labeled tick on the x-axis?",
    6: "What is the spatially lowest labeled tick on the y-axis?",
    7: "What is the spatially highest labeled tick on the y-axis?",
    8: "What is difference between consecutive numerical tick values on the x-axis?",
    9: "What is difference between consecutive numerical tick values on the y-axis?",
    10: "How many lines are there?",
    11: "Do any lines intersect?",
    12: "How many discrete labels are there in the legend?",
    13: "What are the names of the labels in the legend? (from top to bottom, then left to right)",
    14: "What is the difference between the maximum and minimum values of the tick labels on the continuous legend (i.e., colorbar)?",
    15: "What is the maximum value of the tick labels on the continuous legend (i.e., colorbar)?",
    16: "What is the general trend of data from left to right?",
    17: "What is the total number of explicitly labeled ticks across all axes?",
    18: "What is the layout of the subplots?",
    19: "What is the number of subplots?",
}
"""The overarching question of each descriptive template id (1-19)."""

DESCRIPTIVE_RUBRICS: dict[str, str] = {
    "title": '\nRubric: \n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are referring to the same term. It\'s acceptable to have different grammar or form (e.g., α and alpha; $R^2_{t,h,v,m}$ and R^2_t,h,v,m). It\'s acceptable to omit letter prefixes (e.g., (a) Increment over time and Increment over time).\n    * Give a score of 0 if any term in the extracted answer is different from the ground truth answer.\n    * When ground truth answer is "Not Applicable", the response must express "Not Applicable" to receive a score of 1.\n\n    ### Example Start ###\n    T1:\n    Response 1: The title of the plot is "The number of students in each grade".\n    Ground Truth 1: The variance of students in each grade\n\n    T2:\n    Response 2: There is no title.\n    Ground Truth 2: Not Applicable\n\n    T3:\n    Response 3: A_v^t\n    Ground Truth 3: A^t_v\n\n    {\n        "extract_answer_T1": "The number of students in each grade",\n        "score_T1": 0\n        "extract_answer_T2: "Not Applicable",\n        "score_T2": 1\n        "extract_answer_T3": "A_v^t",\n        "score_T3": 1\n    }\n    ### Example End ###        \n',
    "ocr": '\nRubric: \n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are referring to the same term. It\'s acceptable to have equivalent grammar or form (e.g., α and alpha; $R^2_{t,h,v,m}$ and R^2_t,h,v,m). If the ground truth is a number, the extracted answer should be the number with the exact same value.\n    * Give a score of 0 if any term in the extracted answer is different from the ground truth answer, or if the extracted number is different in value from the ground truth number.\n    * When ground truth answer is "Not Applicable", the response must express "Not Applicable" to receive a score of 1.\n\n    ### Example Start ###\n    T1:\n    Response 1: The answer is 1.0\n    Ground Truth 1: 1.00\n\n    T2:\n    Response 2: By manually inspecting the plot, the final answer should be 0.\n    Ground Truth 2: Not Applicable\n\n    T3:\n    Response 3: A_v^t\n    Ground Truth 3: A^t_v\n\n    {\n        "extract_answer_T1": 1.0,\n        "score_T1": 1\n        "extract_answer_T2: 0,\n        "score_T2": 0\n        "extract_answer_T3": "A_v^t",\n        "score_T3": 1\n    }\n    ### Example End ###        \n',
    "quant": '\nRubric:\n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are numbers with the exact same value.\n    * Give a score of 0 if the extracted answer is different in value from the ground truth answer.\n    * When ground truth answer is "Not Applicable", the response must express "Not Applicable" to receive a score of 1.\n\n    ### Example Start ###\n    T1:\n    Response 1: 5\n    Ground Truth 1: 6\n\n    T2:\n    Response 2: 0\n    Ground Truth 2: Not Applicable\n\n    T3:\n    Response 3: 4\n    Ground Truth 3: 4\n\n    {\n        "extract_answer_T1": 5,\n        "score_T1": 0\n        "extract_answer_T2: 0,\n        "score_T2": 0\n        "extract_answer_T3": 4,\n        "score_T3": 1\n    }\n    ### Example End ###   \n',
    "bool": '\nRubric:\n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are the same.\n    * Give a score of 0 if the extracted answer and the ground truth answer are different.\n    * When ground truth answer is "Not Applicable", the response must express "Not Applicable" to receive a score of 1.\n\n    ### Example Start ###\n    T1:\n    Response 1: No, there are no intersections.\n    Ground Truth 1: no\n\n    T2:\n    Response 2: No, all the lines are parallel.\n    Ground Truth 2: Yes\n\n    T3:\n    Response 3: There are no lines in the plot.\n    Ground Truth 3: Not Applicable\n\n    {\n        "extract_answer_T1": "No",\n        "score_T1": 1\n        "extract_answer_T2: "No",\n        "score_T2": 0\n        "extract_answer_T3": "Not Applicable",\n        "score_T3": 1\n    }\n    ### Example End ###   \n',
    "enum": '\nRubric:\n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are referring to the same term. It\'s acceptable to have equivalent grammar or form (e.g., α and alpha; $R^2_{t,h,v,m}$ and R^2_t,h,v,m). The order of the terms must be the same.\n    * Give a score of 0 if any term in the extracted answer is different from the ground truth answer, or if the order of the terms is different.\n    * When ground truth answer is "Not Applicable", the response must express "Not Applicable" to receive a score of 1.\n\n    ### Example Start ###\n    T1:\n    Response 1: Here are the names of the labels: A, B, C\n    Ground Truth 1: B, A, C\n\n    T2:\n    Response 2: The labels are T56, B33.\n    Ground Truth 2: T56,B33,A12\n\n    T3:\n    Response 3: \x07lpha, \x08eta, \\gamma^t_v\n    Ground Truth 3: α, β, γ_v^t\n\n    {\n        "extract_answer_T1": "A, B, C",\n        "score_T1": 0\n        "extract_answer_T2: "T56, B33",\n        "score_T2": 0\n        "extract_answer_T3": "\x07lpha, \x08eta, \\gamma^t_v",\n        "score_T3": 1\n    }\n    ### Example End ###\n',
    "trend": '\nRubric:\n    * Give a score of 1 if and only if the extracted answer and the ground truth answer share the same general trend.\n    * Give a score of 0 if the extracted answer and the ground truth answer are different in trend expression.\n\n    ### Example Start ###\n    T1:\n    Response 1: there is an increase in the data from left to right\n    Ground Truth 1: Decreases\n\n    T2:\n    Response 2: the curves move up and stay constant\n    Ground Truth 2: Increases then stabilizes\n\n    T3:\n    Response 3: Decreases\n    Ground Truth 3: Decreases then increases\n\n    {\n        "extract_answer_T1": "Increases",\n        "score_T1": 0\n        "extract_answer_T2: "Move up and stay constant",\n        "score_T2": 1\n        "extract_answer_T3": "Decreases",\n        "score_T3": 0\n    }\n    ### Example End ###\n',
    "layout": '\nRubric:\n    * Give a score of 1 if and only if the extracted answer and the ground truth answer are the same in terms of the number of rows and columns (e.g., n by m).\n    * Give a score of 0 if the extracted answer is different from the ground truth answer.\n\n    ### Example Start ###\n    T1:\n    Response 1: 2 by 3\n    Ground Truth 1: 3 by 2\n\n    T2:\n    Response 2: the layout is 1 by 1\n    Ground Truth 2: 1 by 1\n\n    T3:\n    Response 3: there are two rows and three columns\n    Ground Truth 3: 2 by 3\n\n    {\n        "extract_answer_T1": "2 by 3",\n        "score_T1": 0\n        "extract_answer_T2: "1 by 1",\n        "score_T2": 1\n        "extract_answer_T3": "2 by 3",\n        "score_T3": 1\n    }\n    ### Example End ###\n',
}
"""Rubric and in-context example per answer kind."""

RUBRIC_OF_QID: dict[int, str] = {
    1: "title",
    2: "ocr",
    3: "ocr",
    4: "ocr",
    5: "ocr",
    6: "ocr",
    7: "ocr",
    8: "quant",
    9: "quant",
    10: "quant",
    11: "bool",
    12: "quant",
    13: "enum",
    14: "quant",
    15: "quant",
    16: "trend",
    17: "quant",
    18: "layout",
    19: "quant",
}
"""Which rubric grades each descriptive template id (`get_rubric`)."""

REASONING_PREFIX = "\nYou will be given a question, an ground truth answer and a model response. You need to extract the final answer from the model response, compare it with the ground truth answer, and then assign a binary score. Avoid providing explanations in your response. If there is no provided model response, please leave the extracted answer empty and give a score of 0. \n\nYour response must follow json formats with keys [extract_answer, score] where the value of the score is an interger in [0, 1]. You must follow the scoring rules:\n"
"""Prefix of a reasoning grading query."""

REASONING_RULES: dict[int, str] = {
    1: '\n    ### Rules ###\n    * Give a score of 1 if and only if the final answer and the ground truth answer are referring to the same term. It\'s acceptable to have different grammar or form (e.g., α and alpha; $R^2_{t,h,v,m}$ and R^2_t,h,v,m). It\'s also acceptable to have different orders of the terms when question asks for multiple terms.\n    * Give a score of 0 if any term (e.g., ACC+ and ACC; P-101 and P=101) is different between the final answer and the ground truth.\n\n    ### Example 1 Starts ###\n    * Question: What is the name of the curve that intersects y=\\lambda exactly three times?\n    * Ground Truth: P56962\n    * Response: There is only one curve that intersects y=\\lambda exactly three times. The name of the curve is written as P55762.\n    \n    {\n        "extracted_answer": "P55762",\n        "score": 0\n    }\n    ### Example 1 Ends ###\n\n\n    ### Example 2 Starts ###\n    * Question: What is the letter of the subplot where all bars are above 35?\n    * Ground Truth: (b)\n    * Response: The letter of the subplot where all bars are above 35 is b.\n\n    {\n        "extracted_answer": "b",\n        "score": 1\n    }\n    ### Example 2 Ends ###\n\n    ### Your Turn ###\n    * Question: <|question|>\n    * Ground Truth: <|ground_truth|>\n    * Response: <|response|>\n\n    ',
    2: '\n    ### Rules ###\n    * If there are predefined options in the question:\n        * Give a score of 1 if the final answer matches the ground truth answer exactly.\n        * Give a score of 0 if the final answer does not match the ground truth answer.\n    * If there are no predefined options in the question:\n        * Give a score of 1 if the final answer shares the same semantic meaning with the ground truth answer (e.g., "increasing then decreasing" and "moving up then down"; "converge" and "move closer together").\n        * Give a score of 0 if the final answer shares different semantic meanings from the ground truth answer (e.g., "increasing then decreasing" and "remain constant"; "converge" and "diverge").\n\n    ### Example 1 Starts ###\n    * Question: What is the trend of the red curve between t=10 and t=25?\n    * Ground Truth: increasing then decreasing\n    * Response: The red curve is increasing between t=10 and t=25.\n\n    {\n        "extracted_answer": "increasing",\n        "score": 0\n    }\n    ### Example 1 Ends ###\n\n    ### Example 2 Starts ###\n    * Question: What is the interval where the blue curve achieves the maximum value among [0, 50], [50, 100], [100, 150], and [150, 200]?\n    * Ground Truth: [50, 100]\n    * Response: The interval where the blue curve achieves the maximum value is [50, 100].\n\n    {\n        "extracted_answer": "[50, 100]",\n        "score": 1\n    }\n    ### Example 2 Ends ###\n\n    ### Your Turn ###\n    * Question: <|question|>\n    * Ground Truth: <|ground_truth|>\n    * Response: <|response|>\n\n    ',
    3: '\n    ### Rules ###\n    * Give a score of 1 if and only if the two numbers are exactly equal in values. It\'s acceptable to have different notations (e.g., 0.01 and 10^-2; 1500 and 1.5e3).\n    * Give a score of 0 if the two numbers are different in values.\n\n    ### Example 1 Starts ###\n    * Question: What is the value of the red curve at t=10?\n    * Ground Truth: 0.01\n    * Response: The value of the red curve at t=10 is 0.012.\n\n    {\n        "extracted_answer": "0.012",\n        "score": 0\n    }\n    ### Example 1 Ends ###\n\n    ### Example 2 Starts ###\n    * Question: What is the value of the blue curve at t=50?\n    * Ground Truth: 1500\n    * Response: The value of the blue curve at t=50 is 1.5e3.\n\n    {\n        "extracted_answer": "1.5e3",\n        "score": 1\n    }\n    ### Example 2 Ends ###\n\n    ### Your Turn ###\n    * Question: <|question|>\n    * Ground Truth: <|ground_truth|>\n    * Response: <|response|>\n\n    ',
    4: '\n    ### Rules ###\n    * Give a score of 1 if and only if the two numbers are exactly equal in values. It\'s acceptable to have different notations (e.g., 0.01 and 10^-2; 1500 and 1.5e3).\n    * Give a score of 0 if the two numbers are different in values.\n\n    ### Example 1 Starts ###\n    * Question: What is the value of the red curve at t=10?\n    * Ground Truth: 0.01\n    * Response: The value of the red curve at t=10 is 0.012.\n\n    {\n        "extracted_answer": "0.012",\n        "score": 0\n    }\n    ### Example 1 Ends ###\n\n    ### Example 2 Starts ###\n    * Question: What is the value of the blue curve at t=50?\n    * Ground Truth: 1500\n    * Response: The value of the blue curve at t=50 is 1.5e3.\n\n    {\n        "extracted_answer": "1.5e3",\n        "score": 1\n    }\n    ### Example 2 Ends ###\n\n    ### Your Turn ###\n    * Question: <|question|>\n    * Ground Truth: <|ground_truth|>\n    * Response: <|response|>\n\n    ',
}
"""Rules and examples per instruction category (1 text-in-chart, 2 text-in-general,
3 number-in-chart, 4 number-in-general); <|question|>, <|ground_truth|>, <|response|>."""
